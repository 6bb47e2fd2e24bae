// synth-kq-pure-MXFP4.gguf: the test data's synth-kq-F32.gguf with every
// matrix (the 16 two-dimensional tensors, token_embd and output included, as
// llama-quantize --pure does) quantized to MXFP4 and everything else copied,
// metadata included (general.file_type becomes MOSTLY_MXFP4_MOE). The test
// data has no MXFP4 file; llama.cpp runs this one for the references in
// tests/reference/synth-kq (record-references.js), and the native tests check
// that wasmlm's own MXFP4 quantizer gives these bytes.
//
// The quantizer follows ggml's quantize_row_mxfp4_ref: per 32 weights the
// E8M0 exponent e = floor(log2 max|x|) - 2 + 127, d = 2^(e - 128), and each
// weight's code is the lowest of the nearest levels d * {0, ±1, ±2, ±3, ±4,
// ±6, ±8, ±12}, weight j in the low nibble of byte j, weight 16 + j in its
// high nibble. Float arithmetic is done in float32 (Math.fround) as ggml does.
//
//   node tests/models/synth-kq-mxfp4.js [OUT_DIR]   # default tests/.tmp/synth-kq
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bytes, GGML, GT, readGguf, writeGguf } from './gguf-write.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const DEFAULT_DIR = path.join(REPO_ROOT, 'tests/.tmp/synth-kq');
export const MXFP4_FILE = 'synth-kq-pure-MXFP4.gguf';
const SOURCE = 'synth-kq/synth-kq-F32.gguf';

const LEVELS = [0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12];
const f32 = Math.fround;

/** 2^(e - 128) as ggml's GGML_E8M0_TO_FP32_HALF gives it (subnormal for e < 2). */
function e8m0Half(e) {
  return f32(2 ** (e - 128));
}

function nearestCode(x, d) {
  let best = 0;
  let bestErr = Math.abs(f32(f32(LEVELS[0] * d) - x));
  for (let i = 1; i < 16; i++) {
    const err = Math.abs(f32(f32(LEVELS[i] * d) - x));
    if (err < bestErr) { best = i; bestErr = err; }
  }
  return best;
}

/** MXFP4 blocks of the float32 values x (a multiple of 32 of them). */
export function quantizeMxfp4(x) {
  const out = Buffer.alloc((x.length / 32) * 17);
  for (let b = 0; b < x.length / 32; b++) {
    const v = x.subarray(32 * b, 32 * b + 32);
    let amax = 0;
    for (const a of v) amax = Math.max(amax, Math.abs(a));
    // ggml's floorf(log2f(amax)) in double: they differ only for amax within
    // float rounding below a power of two (the native test compares this file
    // with wasmlm's quantizer byte for byte).
    const e = amax > 0 ? Math.min(255, Math.max(0, Math.floor(Math.log2(amax)) - 2 + 127)) : 0;
    const d = e8m0Half(e);
    out[17 * b] = e;
    for (let j = 0; j < 16; j++) out[17 * b + 1 + j] = nearestCode(v[j], d) | (nearestCode(v[16 + j], d) << 4);
  }
  return out;
}

/** Writes the MXFP4 file from the test data's F32 model; returns its path. */
export function writeSynthKqMxfp4(testdata, out) {
  const buf = fs.readFileSync(path.join(testdata, SOURCE));
  const { pairs, tensors, dataStart } = readGguf(buf, SOURCE);
  const head = new Bytes();
  for (const p of pairs) {
    if (p.key === 'general.file_type') {
      head.str(p.key);
      head.u32(GT.U32);
      head.u32(GGML.MXFP4.ftype);
    } else {
      head.push(p.bytes);
    }
  }
  const plan = tensors.map((t) => {
    if (t.type !== 0) throw new Error(`${t.name}: expected F32 in ${SOURCE}`);
    const n = t.shape.reduce((a, b) => a * b, 1);
    const values = new Float32Array(buf.buffer.slice(buf.byteOffset + dataStart + t.offset,
      buf.byteOffset + dataStart + t.offset + 4 * n));
    const matrix = t.shape.length === 2;
    return {
      name: t.name, shape: t.shape, type: matrix ? 'MXFP4' : 'F32',
      nbytes: matrix ? (n / 32) * 17 : 4 * n,
      make: () => (matrix ? quantizeMxfp4(values) : Buffer.from(values.buffer)),
    };
  });
  return writeGguf(out, head, pairs.length, plan).file;
}

export function ensureSynthKqMxfp4(testdata, dir = DEFAULT_DIR) {
  const file = path.join(dir, MXFP4_FILE);
  if (!fs.existsSync(file)) writeSynthKqMxfp4(testdata, file);
  return file;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const testdata = process.env.WASMLM_TESTDATA ?? path.resolve(REPO_ROOT, '..', 'shared', 'testdata');
  const file = writeSynthKqMxfp4(testdata, path.join(process.argv[2] ?? DEFAULT_DIR, MXFP4_FILE));
  console.log(`${path.relative(process.cwd(), file)}  ${fs.statSync(file).size} bytes`);
}
