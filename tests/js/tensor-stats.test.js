// tensorStats() and `wasmlm tensor` dequantize in wasm to what llama.cpp's
// gguf-py gives (dequant-reference.json): count, sums and first 32 values.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import { tensorStats, WasmLMError } from '../../web/src/index.js';
import { readGguf } from '../models/gguf-write.js';
import { ensureSynthKqMxfp4 } from '../models/synth-kq-mxfp4.js';
import { describeWithTestdata, REPO_ROOT, TESTDATA, testdataPath } from './helpers/testdata.js';

const run = promisify(execFile);

const REFERENCES = ['llama/stories260K/reference/dequant-reference.json', 'synth-kq/reference/dequant-reference.json'];
// Files covering every type the kernels dequantize (F16, BF16, Q4_0..Q8_0, K-quants, IQ1-IQ4, TQ).
const FILES = {
  'stories260K-lq-BF16.gguf': 'llama/stories260K/derived/',
  'stories260K-lq-Q3_K_M.gguf': 'llama/stories260K/derived/',
  'stories260K-py-Q4_0.gguf': 'llama/stories260K/derived/',
  'stories260K-py-Q4_1.gguf': 'llama/stories260K/derived/',
  'synth-kq-F16.gguf': 'synth-kq/',
  'synth-kq-Q2_K.gguf': 'synth-kq/',
  'synth-kq-Q3_K_M.gguf': 'synth-kq/',
  'synth-kq-Q5_K_S.gguf': 'synth-kq/',
  'synth-kq-pure-IQ4_XS.gguf': 'synth-kq/',
  'synth-kq-pure-IQ4_NL.gguf': 'synth-kq/',
  'synth-kq-pure-TQ1_0.gguf': 'synth-kq/',
  'synth-kq-pure-TQ2_0.gguf': 'synth-kq/',
  'synth-kq-pure-IQ3_XXS.gguf': 'synth-kq/',
  'synth-kq-pure-IQ3_S.gguf': 'synth-kq/',
  'synth-kq-imat-pure-IQ1_S.gguf': 'synth-kq/',
  'synth-kq-imat-pure-IQ1_M.gguf': 'synth-kq/',
  'synth-kq-imat-pure-IQ2_XXS.gguf': 'synth-kq/',
  'synth-kq-imat-pure-IQ2_XS.gguf': 'synth-kq/',
  'synth-kq-imat-pure-IQ2_S.gguf': 'synth-kq/',
  'synth-kq-Q8_0.gguf': 'synth-kq/',
};

function expectMatchesReference(got, ref) {
  expect(got.type).toBe(ref.type);
  expect(got.shape).toEqual(ref.shape);
  expect(got.n).toBe(ref.n);
  const scale = Math.max(1, ref.sumsq);
  expect(Math.abs(got.sum - ref.sum)).toBeLessThanOrEqual(1e-6 * scale);
  expect(Math.abs(got.sumsq - ref.sumsq)).toBeLessThanOrEqual(1e-6 * scale);
  got.first32.forEach((v, i) => expect(Math.abs(v - ref.first32[i])).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(ref.first32[i]))));
}

describeWithTestdata('tensorStats() against llama.cpp dequantization', () => {
  const reference = Object.assign({}, ...REFERENCES.map((f) => JSON.parse(fs.readFileSync(testdataPath(f), 'utf8'))));

  test.each(Object.keys(FILES))('every tensor of %s', async (file) => {
    const tensors = reference[file];
    expect(Object.keys(tensors).length).toBeGreaterThan(0);
    for (const [name, ref] of Object.entries(tensors)) expectMatchesReference(await tensorStats(testdataPath(FILES[file] + file), name), ref);
  });

  // No gguf-py reference for MXFP4: the expected values come from the format
  // itself, the E2M1 level of each code times 2^(e - 128), here in JS.
  test('every tensor of the MXFP4 file (tests/models/synth-kq-mxfp4.js)', async () => {
    const file = ensureSynthKqMxfp4(TESTDATA);
    const buf = fs.readFileSync(file);
    const { tensors, dataStart } = readGguf(buf);
    const levels = [0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12];
    let matrices = 0;
    for (const t of tensors) {
      const n = t.shape.reduce((a, b) => a * b, 1);
      const values = new Float64Array(n);
      const at = dataStart + t.offset;
      if (t.type === 39) {
        for (let b = 0; b < n / 32; b++) {
          const d = 2 ** (buf[at + 17 * b] - 128);
          for (let j = 0; j < 16; j++) {
            const q = buf[at + 17 * b + 1 + j];
            values[32 * b + j] = levels[q & 15] * d;
            values[32 * b + 16 + j] = levels[q >> 4] * d;
          }
        }
        matrices++;
      } else {
        values.set(new Float32Array(buf.buffer.slice(buf.byteOffset + at, buf.byteOffset + at + 4 * n)));
      }
      const got = await tensorStats(file, t.name);
      expectMatchesReference(got, {
        type: t.type === 39 ? 'MXFP4' : 'F32', shape: t.shape, n,
        sum: values.reduce((a, v) => a + v, 0), sumsq: values.reduce((a, v) => a + v * v, 0), first32: Array.from(values.subarray(0, 32)),
      });
    }
    expect(matrices).toBe(16);
  });

  test('wasmlm tensor --json prints the same summary', async () => {
    const file = 'synth-kq-pure-IQ4_XS.gguf';
    const { stdout } = await run('node', ['web/bin/wasmlm.js', 'tensor', testdataPath(FILES[file] + file), 'blk.1.ffn_up.weight', '--json'], { cwd: REPO_ROOT });
    expectMatchesReference(JSON.parse(stdout), reference[file]['blk.1.ffn_up.weight']);
  });

  test('a tensor of an rwkv.cpp file (unaligned offsets) is read from its own bytes', async () => {
    const r = await tensorStats(testdataPath('rwkv/tiny-rwkv-5v2-730K-Q5_1.bin'), 'blocks.0.att.key.weight');
    expect(r).toMatchObject({ type: 'Q5_1', shape: [64, 64], n: 4096 });
    expect(Number.isFinite(r.sum) && r.sumsq > 0).toBe(true);
  });

  test('an unknown name is BAD_FORMAT; a type without a dequantizer is UNSUPPORTED', async () => {
    await expect(tensorStats(testdataPath('synth-kq/synth-kq-F16.gguf'), 'nope')).rejects.toMatchObject({ code: 'BAD_FORMAT' });
    // An F32 norm vector retyped I32 (as many bytes): a type without a dequantizer.
    const bytes = fs.readFileSync(testdataPath('synth-kq/synth-kq-F16.gguf'));
    const name = Buffer.from('output_norm.weight');
    const info = bytes.indexOf(name) + name.length; // its tensor info: n_dims, dims, type
    bytes.writeUInt32LE(26 /* I32 */, info + 4 + 8 * bytes.readUInt32LE(info));
    const error = await tensorStats(new Uint8Array(bytes), 'output_norm.weight').catch((e) => e);
    expect(error).toBeInstanceOf(WasmLMError);
    expect(error.code).toBe('UNSUPPORTED');
  });
});
