#!/usr/bin/env node
// Writes the relaxed-SIMD copy of a linked .wasm (see
// native/quant/relaxed/relaxed_simd.h). The C++ writes two SIMD-128
// instructions used nowhere else as placeholders, with the same operand and
// result types as the relaxed ones they stand for:
//   i16x8.q15mulr_sat_s -> i16x8.relaxed_dot_i8x16_i7x16_s (0xfd 0x112)
//   i8x16.avgr_u        -> i8x16.relaxed_swizzle           (0xfd 0x100)
// and one pair of instructions for a relaxed one with three operands:
//   i16x8.avgr_u i16x8.avgr_u (a b c on the stack: a (b c))
//                       -> i32x4.relaxed_dot_i8x16_i7x16_add_s (0xfd 0x113)
//                          and three nops, the same six bytes
// Binaryen (Debian's, with Emscripten) does the decoding and encoding:
// wasm-dis, the substitutions in the text, wasm-as. Binaryen 108 encodes the
// dot as engines ship it but the swizzle with its prototype opcode
// (0xfd 0xa2 0x01), so the text is assembled a second time with another
// three-byte binary op (i16x8.extmul_low_i8x16_s, 0xfd 0x9c 0x01) in the
// swizzles' places: the two binaries differ exactly at the swizzles, which
// are rewritten there to the shipped encoding (0xfd 0x80 0x02, the same
// length). The dot-adds' pairs are found the same way (a third assembly
// with i16x8.extmul_high_i8x16_s in place of i16x8.avgr_u); each must be
// two adjacent instructions, else the build fails.
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
const DOT_ADD = { placeholder: 'i16x8.avgr_u', marker: 'i16x8.extmul_high_i8x16_s' };
const DOT_ADD_PLACEHOLDER = [0xfd, 0x9b, 0x01];
const DOT_ADD_SHIPPED = [0xfd, 0x93, 0x02, 0x01, 0x01, 0x01]; // then three nops

// Positions where `a` and `b` differ, as sites of three-byte instructions
// whose encoding in `a` is `expected`.
function markedSites(a, b, expected) {
  if (a.length !== b.length) throw new Error('the assemblies differ in length: cannot locate the placeholders');
  const sites = [];
  for (let i = 0; i < a.length; ++i) {
    if (a[i] === b[i]) continue;
    if (a[i - 1] !== expected[0] || a[i] !== expected[1] || a[i + 1] !== expected[2])
      throw new Error(`unexpected difference at byte ${i} between the assemblies`);
    sites.push(i - 1);
    i += 1;
  }
  return sites;
}

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error('usage: node wasm/relaxed-simd.mjs IN.wasm OUT.wasm');
  process.exit(2);
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmlm-relaxed-'));
try {
  const text = path.join(dir, 'module.wat');
  execFileSync('wasm-dis', [input, '-o', text], { stdio: 'inherit' });
  let source = fs.readFileSync(text, 'utf8');
  const count = (op) => source.split(op.placeholder).length - 1;
  const dots = count(DOT), swizzles = count(SWIZZLE), dotAdds = count(DOT_ADD) / 2;
  if (!Number.isInteger(dotAdds)) throw new Error(`an odd number of ${DOT_ADD.placeholder}: one is not a dot-add's`);
  if (dots === 0) throw new Error(`${input} has no ${DOT.placeholder}: nothing to make relaxed`);
  source = source.replaceAll(DOT.placeholder, DOT.relaxed);
  const assemble = (wat, out) => {
    fs.writeFileSync(text, wat);
    execFileSync('wasm-as', ['--all-features', text, '-o', out], { stdio: 'inherit' });
    return fs.readFileSync(out);
  };
  // Every placeholder is found by a diff against the same text assembled
  // with a marker in its place; all are rewritten in one copy after.
  const relaxedText = source.replaceAll(SWIZZLE.placeholder, SWIZZLE.relaxed);
  const relaxed = assemble(relaxedText, path.join(dir, 'relaxed.wasm'));
  const bytes = Buffer.from(relaxed);
  if (dotAdds > 0) {
    const marked = assemble(relaxedText.replaceAll(DOT_ADD.placeholder, DOT_ADD.marker), path.join(dir, 'marked-dot-add.wasm'));
    const sites = markedSites(relaxed, marked, DOT_ADD_PLACEHOLDER);
    if (sites.length !== 2 * dotAdds) throw new Error(`found ${sites.length} i16x8.avgr_u in the binary, expected ${2 * dotAdds}`);
    for (let k = 0; k < sites.length; k += 2) {
      if (sites[k + 1] !== sites[k] + 3) throw new Error(`the i16x8.avgr_u at byte ${sites[k]} is not one of a pair`);
      bytes.set(DOT_ADD_SHIPPED, sites[k]);
    }
  }
  if (swizzles > 0) {
    const marked = assemble(source.replaceAll(SWIZZLE.placeholder, SWIZZLE_MARKER), path.join(dir, 'marked.wasm'));
    const sites = markedSites(relaxed, marked, SWIZZLE_PROTOTYPE);
    if (sites.length !== swizzles) throw new Error(`found ${sites.length} relaxed swizzles in the binary, expected ${swizzles}`);
    for (const at of sites) bytes.set(SWIZZLE_SHIPPED, at);
  }
  fs.writeFileSync(output, bytes);
  console.log(`${path.basename(output)}: ${dots} relaxed dot(s), ${dotAdds} relaxed dot-add(s), ${swizzles} relaxed swizzle(s)`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
