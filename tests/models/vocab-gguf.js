#!/usr/bin/env node
// Writes a vocab-only GGUF of a Hugging Face tokenizer as llama.cpp's
// convert_hf_to_gguf.py --vocab-only would (see hf-vocab-to-gguf.js), and
// gives its tokenizer.* entries to model generators (the benchmark's):
//
//   node tests/models/vocab-gguf.js NAME OUT.gguf
//
// NAME: one of vocab-sources.js (qwen2.5, deepseek-r1-qwen, qwen3, gemma2,
// gemma3). The tests run it into tests/.tmp/ (the files are megabytes: never
// committed).
import fs from 'node:fs';
import { writeMetadataGguf } from './gguf-write.js';
import { gpt2Vocab, mergesOf, sentencepieceVocab, specialVocab } from './hf-vocab-to-gguf.js';
import { VOCAB_SOURCES } from './vocab-sources.js';

const ID_KEYS = {
  bos: 'tokenizer.ggml.bos_token_id',
  eos: 'tokenizer.ggml.eos_token_id',
  unk: 'tokenizer.ggml.unknown_token_id',
  sep: 'tokenizer.ggml.seperator_token_id', // sic, gguf-py's spelling
  pad: 'tokenizer.ggml.padding_token_id',
  mask: 'tokenizer.ggml.mask_token_id',
};
const ADD_KEYS = { bos: 'tokenizer.ggml.add_bos_token', eos: 'tokenizer.ggml.add_eos_token', sep: 'tokenizer.ggml.add_sep_token' };

const u32 = (value) => ({ type: 'u32', value });
const f32 = (value) => ({ type: 'f32', value });
const str = (value) => ({ type: 'string', value });
const bool = (value) => ({ type: 'bool', value });
const array = (elem, value) => ({ type: 'array', elem, value });

function hparamEntries(arch, hparams) {
  return Object.entries(hparams).map(([key, value]) => [`${arch}.${key}`,
    Number.isInteger(value) && !key.includes('freq_base') && !key.includes('softcapping') ? u32(value) : f32(value)]);
}

export function vocabGgufEntries(name) {
  const source = VOCAB_SOURCES[name];
  if (!source) throw new Error(`unknown vocabulary ${name} (known: ${Object.keys(VOCAB_SOURCES).join(', ')})`);
  const { tokenizerJson, tokenizerConfig } = source.files();
  const entries = [
    ['general.architecture', str(source.architecture)],
    ['general.name', str(name)],
    ...hparamEntries(source.architecture, source.hparams),
    ['general.file_type', u32(1)],
  ];
  let nVocab;
  if (source.kind === 'gpt2') {
    const { tokens, types } = gpt2Vocab(tokenizerJson, source.config.vocab_size);
    nVocab = tokens.length;
    entries.push(['tokenizer.ggml.model', str('gpt2')], ['tokenizer.ggml.pre', str(source.pre)],
      ['tokenizer.ggml.tokens', array('string', tokens)], ['tokenizer.ggml.token_type', array('i32', types)],
      ['tokenizer.ggml.merges', array('string', mergesOf(tokenizerJson))]);
  } else {
    const { tokens, scores, types } = sentencepieceVocab(tokenizerJson, tokenizerConfig, source.config.vocab_size);
    nVocab = tokens.length;
    entries.push(['tokenizer.ggml.model', str('llama')], ['tokenizer.ggml.pre', str('default')],
      ['tokenizer.ggml.tokens', array('string', tokens)], ['tokenizer.ggml.scores', array('f32', scores)],
      ['tokenizer.ggml.token_type', array('i32', types)]);
  }
  const special = specialVocab(tokenizerJson, tokenizerConfig, source.config, nVocab);
  for (const [typ, id] of Object.entries(special.ids)) if (ID_KEYS[typ]) entries.push([ID_KEYS[typ], u32(id)]);
  for (const [typ, value] of Object.entries(special.add)) if (ADD_KEYS[typ]) entries.push([ADD_KEYS[typ], bool(value)]);
  const template = source.chatTemplateFile ? fs.readFileSync(source.chatTemplateFile, 'utf8') : special.chatTemplate;
  if (typeof template === 'string') entries.push(['tokenizer.chat_template', str(template)]);
  if (source.kind === 'sentencepiece') entries.push(['tokenizer.ggml.add_space_prefix', bool(false)]);
  return entries;
}

export function writeVocabGguf(name, out) {
  writeMetadataGguf(out, vocabGgufEntries(name));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [name, out] = process.argv.slice(2);
  if (!name || !out) {
    console.error('usage: write-vocab-gguf.js NAME OUT.gguf');
    process.exit(2);
  }
  writeVocabGguf(name, out);
}
