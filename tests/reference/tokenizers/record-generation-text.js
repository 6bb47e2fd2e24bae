#!/usr/bin/env node
// Records what native llama.cpp (node-llama-cpp) shows for generated ids
// that follow a prompt: its detokenization of prompt + generated ids minus
// that of the prompt, for SentencePiece vocabularies (a leading "▁" that only
// a sequence's first token loses) and byte-level BPE ones, after prompts that
// end in a word, a space, a newline, and inside a UTF-8 character. Writes
// generation-text.json:
//
//   node tests/reference/tokenizers/record-generation-text.js
//
// node-llama-cpp returns JavaScript strings, so a prompt ending inside a
// character ends in U+FFFD; the generated text then starts with that whole
// character (its first bytes came with the prompt), which is what the
// recorded `shown` holds: the full text minus the prompt's text without its
// trailing U+FFFD.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadVocab, openLlama } from './llamacpp.js';
import { stringifyCompact } from './stringify-compact.js';
import { writeVocabGguf } from '../../models/vocab-gguf.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '../../..');
const TESTDATA = path.resolve(process.env.WASMLM_TESTDATA ?? path.join(REPO, '..', 'shared', 'testdata'));

const vocabs = [
  { name: 'stories260K', file: 'llama/stories260K/stories260K.gguf' },
  { name: 'llama-spm', file: 'tokenizers/llamacpp-vocab/ggml-vocab-llama-spm.gguf' },
  { name: 'phi-3', file: 'tokenizers/llamacpp-vocab/ggml-vocab-phi-3.gguf' },
  { name: 'gpt-2', file: 'tokenizers/llamacpp-vocab/ggml-vocab-gpt-2.gguf' },
  { name: 'qwen3', generated: true },
  { name: 'gemma3', generated: true },
];

const STORY = 'Once upon a time, there was a little girl';
const PROMPTS = ['Once upon a', 'Once upon a ', 'Once upon a\n', 'Hello'];
const SPLIT_TEXT = 'Music: \u{1D11E} and caf\u00E9 \u4E2D\u6587 done';

const llama = await openLlama();
const result = {
  _about: 'native llama.cpp (node-llama-cpp 3.22.1, CPU): for prompt ids and generated ids, shown = ' +
    'detokenize(prompt + generated) minus detokenize(prompt) (its trailing U+FFFD dropped: a character the prompt ' +
    'began). Written by record-generation-text.js.',
  vocabs: {},
};
for (const v of vocabs) {
  const file = v.generated ? path.join(REPO, 'tests/.tmp/vocab', `ggml-vocab-${v.name}.gguf`) : path.join(TESTDATA, v.file);
  if (v.generated) writeVocabGguf(v.name, file);
  const vocab = await loadVocab(llama, file);
  const { model } = vocab;
  const bos = model.tokens.bos != null && model.tokens.shouldPrependBosToken ? [model.tokens.bos] : [];
  const detok = (ids) => model.detokenize(ids, false);
  const generated = vocab.tokenize(STORY).slice(-5); // " there was a little girl": no punctuation first, which llama.cpp's clean-up of spaces would join to the prompt
  const cases = PROMPTS.map((text) => ({ prompt_ids: [...bos, ...vocab.tokenize(text)], generated_ids: generated }));
  // A prompt that ends inside a character: every split of SPLIT_TEXT's ids
  // whose prompt part detokenizes to a trailing U+FFFD.
  const split = [...bos, ...vocab.tokenize(SPLIT_TEXT)];
  for (let k = 1; k < split.length; k++) {
    if (detok(split.slice(0, k)).endsWith('\uFFFD')) cases.push({ prompt_ids: split.slice(0, k), generated_ids: split.slice(k) });
  }
  for (const c of cases) {
    const full = detok([...c.prompt_ids, ...c.generated_ids]);
    const prompt = detok(c.prompt_ids).replace(/\uFFFD+$/, '');
    if (!full.startsWith(prompt)) throw new Error(`${v.name}: ${JSON.stringify(full)} does not start with ${JSON.stringify(prompt)}`);
    c.shown = full.slice(prompt.length);
  }
  result.vocabs[v.name] = { file: v.generated ? `generated:${v.name}` : v.file, cases };
  console.log(`${v.name}: ${cases.length} cases (${cases.length - PROMPTS.length} inside a character); first: ${JSON.stringify(cases[0].shown)}`);
  await model.dispose();
}
await llama.dispose();
fs.writeFileSync(path.join(HERE, 'generation-text.json'), stringifyCompact(result));
