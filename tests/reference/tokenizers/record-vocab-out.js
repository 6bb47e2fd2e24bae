#!/usr/bin/env node
// Records llama.cpp's tokenization of a test-tokenizer-0 .inp file (no BOS,
// special tokens not parsed, as test-tokenizer-0 does) as its .out file,
// with native llama.cpp (node-llama-cpp):
//
//   node tests/reference/tokenizers/record-vocab-out.js VOCAB.gguf CASES.inp OUT.out
//
// Recorded: ggml-vocab-phi-3.gguf.out here, from ../shared/testdata's
// ggml-vocab-phi-3.gguf and its .inp (the test data has no .out for it).
import fs from 'node:fs';
import { loadVocab, openLlama } from './llamacpp.js';
import { formatVocabOut, parseVocabInp } from './vocab-cases.js';

const [vocabPath, inpPath, outPath] = process.argv.slice(2);
if (!vocabPath || !inpPath || !outPath) {
  console.error('usage: record-vocab-out.js VOCAB.gguf CASES.inp OUT.out');
  process.exit(2);
}
const llama = await openLlama();
const vocab = await loadVocab(llama, vocabPath);
const cases = parseVocabInp(fs.readFileSync(inpPath, 'utf8'));
fs.writeFileSync(outPath, formatVocabOut(cases.map((text) => vocab.tokenize(text))));
console.log(`${outPath}: ${cases.length} cases`);
await vocab.model.dispose();
await llama.dispose();
