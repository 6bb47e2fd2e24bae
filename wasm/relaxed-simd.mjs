#!/usr/bin/env node
// Writes the relaxed-SIMD copy of a linked .wasm (see
// native/quant/relaxed/relaxed_simd.h). The C++ writes two SIMD-128
// instructions used nowhere else as placeholders, with the same operand and
// result types as the relaxed ones they stand for:
//   i16x8.q15mulr_sat_s -> i16x8.relaxed_dot_i8x16_i7x16_s (0xfd 0x112)
//   i8x16.avgr_u        -> i8x16.relaxed_swizzle           (0xfd 0x100)
// Binaryen (Debian's, with Emscripten) does the decoding and encoding:
// wasm-dis, the substitutions in the text, wasm-as. Binaryen 108 encodes the
// dot as engines ship it but the swizzle with its prototype opcode
// (0xfd 0xa2 0x01), so the text is assembled a second time with another
// three-byte binary op (i16x8.extmul_low_i8x16_s, 0xfd 0x9c 0x01) in the
// swizzles' places: the two binaries differ exactly at the swizzles, which
// are rewritten there to the shipped encoding (0xfd 0x80 0x02, the same
// length).
//
//   node wasm/relaxed-simd.mjs IN.wasm OUT.wasm
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const DOT = { placeholder: 'i16x8.q15mulr_sat_s', relaxed: 'i16x8.dot_i8x16_i7x16_s' };
const SWIZZLE = { placeholder: 'i8x16.avgr_u', relaxed: 'i8x16.relaxed_swizzle' };
const SWIZZLE_PROTOTYPE = [0xfd, 0xa2, 0x01];
const SWIZZLE_SHIPPED = [0xfd, 0x80, 0x02];
const SWIZZLE_MARKER = 'i16x8.extmul_low_i8x16_s';

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error('usage: node wasm/relaxed-simd.mjs IN.wasm OUT.wasm');
  process.exit(2);
}

// Positions where `a` and `b` differ, as sites of the three-byte swizzle.
function swizzleSites(a, b) {
  if (a.length !== b.length) throw new Error('the two assemblies differ in length: cannot locate the swizzles');
  const sites = [];
  for (let i = 0; i < a.length; ++i) {
    if (a[i] === b[i]) continue;
    if (a[i] !== SWIZZLE_PROTOTYPE[1] || a[i - 1] !== SWIZZLE_PROTOTYPE[0] || a[i + 1] !== SWIZZLE_PROTOTYPE[2])
      throw new Error(`unexpected difference at byte ${i} between the two assemblies`);
    sites.push(i - 1);
  }
  return sites;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmlm-relaxed-'));
try {
  const text = path.join(dir, 'module.wat');
  execFileSync('wasm-dis', [input, '-o', text], { stdio: 'inherit' });
  let source = fs.readFileSync(text, 'utf8');
  const count = (op) => source.split(op.placeholder).length - 1;
  const dots = count(DOT), swizzles = count(SWIZZLE);
  if (dots === 0) throw new Error(`${input} has no ${DOT.placeholder}: nothing to make relaxed`);
  source = source.replaceAll(DOT.placeholder, DOT.relaxed);
  const assemble = (wat, out) => {
    fs.writeFileSync(text, wat);
    execFileSync('wasm-as', ['--all-features', text, '-o', out], { stdio: 'inherit' });
    return fs.readFileSync(out);
  };
  const bytes = assemble(source.replaceAll(SWIZZLE.placeholder, SWIZZLE.relaxed), path.join(dir, 'relaxed.wasm'));
  if (swizzles > 0) {
    const marked = assemble(source.replaceAll(SWIZZLE.placeholder, SWIZZLE_MARKER), path.join(dir, 'marked.wasm'));
    const sites = swizzleSites(bytes, marked);
    if (sites.length !== swizzles) throw new Error(`found ${sites.length} relaxed swizzles in the binary, expected ${swizzles}`);
    for (const at of sites) bytes.set(SWIZZLE_SHIPPED, at);
  }
  fs.writeFileSync(output, bytes);
  console.log(`${path.basename(output)}: ${dots} relaxed dot(s), ${swizzles} relaxed swizzle(s)`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
