#!/usr/bin/env node
// Records native llama.cpp's (node-llama-cpp) tokenization of texts.json and
// its end-of-generation set, for the vocabularies written by
// tests/models/vocab-gguf.js (Qwen2.5, Qwen3, Gemma 2, Gemma 3) and Phi-3's from the
// test data, into llamacpp-ids.json:
//
//   node tests/reference/tokenizers/record-llamacpp-ids.js
//
// Each text is tokenized without BOS, with special tokens as text ("plain")
// and parsed ("special"), as common_tokenize(vocab, text, false, special).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadVocab, openLlama } from './llamacpp.js';
import { stringifyCompact } from './stringify-compact.js';
import { writeVocabGguf } from '../../models/vocab-gguf.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '../../..');
const TESTDATA = path.resolve(process.env.WASMLM_TESTDATA ?? path.join(REPO, '..', 'shared', 'testdata'));

const GENERATED = ['qwen2.5', 'qwen3', 'gemma2', 'gemma3'];
const vocabs = [
  ...GENERATED.map((name) => {
    const file = path.join(REPO, 'tests/.tmp/vocab', `ggml-vocab-${name}.gguf`);
    return { name, file, make: () => writeVocabGguf(name, file) };
  }),
  { name: 'phi-3', file: path.join(TESTDATA, 'tokenizers/llamacpp-vocab/ggml-vocab-phi-3.gguf') },
];

const { texts } = JSON.parse(fs.readFileSync(path.join(HERE, 'texts.json'), 'utf8'));
const llama = await openLlama();
const result = {
  _about: 'llama.cpp (node-llama-cpp 3.22.1, CPU) on texts.json: ids without BOS, special tokens as text (plain) and ' +
    'parsed (special); eog: every id llama_vocab_is_eog accepts. Written by record-llamacpp-ids.js.',
  vocabs: {},
};
for (const v of vocabs) {
  v.make?.();
  const vocab = await loadVocab(llama, v.file);
  result.vocabs[v.name] = {
    eog: vocab.eogIds(),
    plain: texts.map((t) => vocab.tokenize(t, false)),
    special: texts.map((t) => vocab.tokenize(t, true)),
  };
  await vocab.model.dispose();
}
await llama.dispose();
fs.writeFileSync(path.join(HERE, 'llamacpp-ids.json'), stringifyCompact(result));

