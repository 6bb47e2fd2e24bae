#!/usr/bin/env node
// Writes the relaxed-SIMD copy of a linked .wasm (see
// native/quant/relaxed/relaxed_simd.h): every i16x8.q15mulr_sat_s, the
// placeholder the C++ writes, becomes i16x8.relaxed_dot_i8x16_i7x16_s
// (opcode 0xfd 0x112, as engines ship it). Binaryen (Debian's, with
// Emscripten) does the decoding and encoding: wasm-dis, one substitution in
// the text, wasm-as.
//
//   node wasm/relaxed-simd.mjs IN.wasm OUT.wasm
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const PLACEHOLDER = 'i16x8.q15mulr_sat_s';
const RELAXED = 'i16x8.dot_i8x16_i7x16_s'; // binaryen's name; encoded as 0xfd 0x112

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error('usage: node wasm/relaxed-simd.mjs IN.wasm OUT.wasm');
  process.exit(2);
}
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmlm-relaxed-'));
try {
  const text = path.join(dir, 'module.wat');
  execFileSync('wasm-dis', [input, '-o', text], { stdio: 'inherit' });
  const source = fs.readFileSync(text, 'utf8');
  const count = source.split(PLACEHOLDER).length - 1;
  if (count === 0) throw new Error(`${input} has no ${PLACEHOLDER}: nothing to make relaxed`);
  fs.writeFileSync(text, source.replaceAll(PLACEHOLDER, RELAXED));
  execFileSync('wasm-as', ['--all-features', text, '-o', output], { stdio: 'inherit' });
  console.log(`${path.basename(output)}: ${count} relaxed dot(s)`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
