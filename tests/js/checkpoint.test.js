// Meta LLaMA checkpoint folders (stories260K written by torch: f32, bf16, two
// model-parallel shards of each, the legacy pickle format) run through
// openModel() and `wasmlm run`: llama.cpp's greedy tokens for the GGUF F32
// model (BF16: the first 8) and its logits, from a folder path, from Files
// (a dropped folder) and from URLs; Q8_0 on load against llama.cpp's Q8_0.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { openModel, releaseWasmModules } from '../../web/src/index.js';
import { startTestServer } from './helpers/serve.js';
import { describeWithTestdata, REPO_ROOT, testdataPath } from './helpers/testdata.js';

const run = promisify(execFile);
const PROMPT = [1, 403, 407, 261, 378]; // <s> Once upon a time
const BASE = 'pytorch/meta-stories260K';

function readFloats(file) {
  const b = fs.readFileSync(file);
  return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
}

function maxDifference(a, b) {
  let max = 0;
  for (let i = 0; i < b.length; ++i) max = Math.max(max, Math.abs(a[i] - b[i]));
  return max;
}

function range(values) {
  let lo = Infinity, hi = -Infinity;
  for (const v of values) {
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  return hi - lo;
}

function argmax(values) {
  let best = 0;
  for (let i = 1; i < values.length; ++i) if (values[i] > values[best]) best = i;
  return best;
}

/** The logits after PROMPT, then `n` greedy ids. */
async function greedyRun(input, options = {}, n = 32) {
  const model = await openModel(input, { contextLength: 64, ...options });
  try {
    const logits = model.eval(PROMPT);
    const ids = [];
    let last = logits;
    for (let i = 0; i < n; ++i) {
      ids.push(argmax(last));
      last = model.eval([ids.at(-1)]);
    }
    return { logits, ids, weightBytes: model.describe().memory.weightBytes, tokenizer: model.tokenizer.encode('Once upon a time', { addBos: true }) };
  } finally {
    model.dispose();
  }
}

describeWithTestdata('Meta checkpoints in wasm', () => {
  const reference = JSON.parse(fs.readFileSync(testdataPath(`${BASE}/ref/reference-outputs.json`), 'utf8'));
  const greedy = reference.find((r) => r.file === 'stories260K.gguf').result.greedy_ids;
  const f32Logits = readFloats(testdataPath(`${BASE}/ref/stories260K-F32.logits.f32`));
  const spread = range(f32Logits);
  let server;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
    releaseWasmModules();
  });

  test.each([['f32', 32, 1e-3], ['mp2-f32', 32, 1e-3], ['legacy-f32', 32, 1e-3], ['bf16', 8, 0.05], ['mp2-bf16', 8, 0.05]])(
    '%s folder: llama.cpp\'s greedy tokens (first %i) and logits', async (dir, sameTokens, fraction) => {
      const { logits, ids, tokenizer } = await greedyRun(testdataPath(`${BASE}/${dir}`));
      expect(maxDifference(logits, f32Logits)).toBeLessThanOrEqual(fraction * spread);
      expect(ids.slice(0, sameTokens)).toEqual(greedy.slice(0, sameTokens));
      expect(tokenizer).toEqual(PROMPT); // the folder's tokenizer.model
    });

  test('the files of a folder (as dropped: Files in any order) and its URLs give the folder\'s logits', async () => {
    const dir = testdataPath(`${BASE}/mp2-f32`);
    const names = ['tokenizer.model', 'consolidated.01.pth', 'params.json', 'consolidated.00.pth'];
    const fromFolder = await greedyRun(dir, {}, 4);
    const files = names.map((name) => new File([fs.readFileSync(path.join(dir, name))], name));
    const fromFiles = await greedyRun(files, {}, 4);
    expect(fromFiles.logits).toEqual(fromFolder.logits);
    expect(fromFiles.ids).toEqual(fromFolder.ids);
    const urls = names.map((name) => `${server.url}/testdata/${BASE}/mp2-f32/${name}`);
    const fromUrls = await greedyRun(urls, {}, 4);
    expect(fromUrls.logits).toEqual(fromFolder.logits);
  });

  // The checkpoint and the same model's GGUF, both quantized on load, hold the
  // same weights (llama-quantize's bytes; ffn_down's 172-wide rows as F16).
  test('quantized on load to Q8_0: the GGUF quantized on load, and the weights take Q8_0\'s size', async () => {
    const f32 = await greedyRun(testdataPath(`${BASE}/mp2-f32`), {}, 0);
    const quantized = await greedyRun(testdataPath(`${BASE}/mp2-f32`), { quantize: 'Q8_0' }, 0);
    const gguf = await greedyRun(testdataPath('llama/stories260K/stories260K.gguf'), { quantize: 'Q8_0' }, 0);
    expect(maxDifference(quantized.logits, gguf.logits)).toBeLessThanOrEqual(1e-4 * spread);
    expect(maxDifference(quantized.logits, f32Logits)).toBeGreaterThan(10 * maxDifference(quantized.logits, gguf.logits));
    expect(quantized.weightBytes).toBeLessThan(0.55 * f32.weightBytes);
  });

  test('wasmlm run FOLDER --quantize Q8_0 generates with the folder\'s tokenizer', async () => {
    const { stdout } = await run('node', ['web/bin/wasmlm.js', 'run', testdataPath(`${BASE}/f32`), '--prompt', 'Once upon a time',
      '--n', '32', '--temp', '0', '--json'], { cwd: REPO_ROOT });
    const out = JSON.parse(stdout);
    expect(out.prompt_ids).toEqual(PROMPT);
    expect(out.ids).toEqual(greedy);
    expect(out.text.startsWith(', there was a little girl')).toBe(true);
    const quantized = JSON.parse((await run('node', ['web/bin/wasmlm.js', 'run', testdataPath(`${BASE}/bf16`), '--prompt', 'Once upon a time',
      '--n', '8', '--temp', '0', '--quantize', 'Q8_0', '--json'], { cwd: REPO_ROOT })).stdout);
    expect(quantized.ids.slice(0, 4)).toEqual(greedy.slice(0, 4));
  });

  test('a checkpoint without output.weight (tied to the embedding, as LLaMA 3.2 1B) runs as one whose output is the embedding', async () => {
    const dir = testdataPath(`${BASE}/f32`);
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmlm-tied-'));
    execFileSync('/usr/bin/python3', ['-c', `
import sys, torch
sd = torch.load(sys.argv[1], map_location='cpu')
del sd['output.weight']
torch.save(sd, sys.argv[2] + '/tied.pth')
sd['output.weight'] = sd['tok_embeddings.weight'].clone()
torch.save(sd, sys.argv[2] + '/copied.pth')`, path.join(dir, 'consolidated.00.pth'), out]);
    const [params, tokenizer] = [path.join(dir, 'params.json'), path.join(dir, 'tokenizer.model')];
    const asShard = (file) => new File([fs.readFileSync(path.join(out, file))], 'consolidated.00.pth');
    const tied = await greedyRun([params, tokenizer, asShard('tied.pth')], {}, 8);
    const copied = await greedyRun([params, tokenizer, asShard('copied.pth')], {}, 8);
    expect(tied.logits).toEqual(copied.logits);
    expect(tied.ids).toEqual(copied.ids);
  });

  test('an incomplete folder, a truncated shard and a bad params.json are typed errors', async () => {
    const dir = testdataPath(`${BASE}/mp2-f32`);
    const file = (name, bytes = fs.readFileSync(path.join(dir, name))) => new File([bytes], name);
    await expect(openModel([file('params.json'), file('consolidated.01.pth')])).rejects.toMatchObject({
      code: 'BAD_FORMAT', message: expect.stringContaining('consolidated.00.pth is missing'),
    });
    await expect(openModel([file('consolidated.00.pth'), file('consolidated.01.pth')])).rejects.toMatchObject({
      code: 'BAD_FORMAT', message: expect.stringContaining('no params.json'),
    });
    await expect(openModel(path.join(dir, 'consolidated.00.pth'))).rejects.toMatchObject({
      code: 'BAD_FORMAT', message: expect.stringContaining('params.json'),
    });
    const noTokenizer = await openModel([file('params.json'), file('consolidated.00.pth'), file('consolidated.01.pth')]);
    expect(() => noTokenizer.tokenizer).toThrow(expect.objectContaining({ code: 'UNSUPPORTED', message: expect.stringContaining('has no tokenizer') }));
    noTokenizer.dispose();
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmlm-ckpt-'));
    fs.writeFileSync(path.join(empty, 'consolidated.00.pth'), fs.readFileSync(path.join(dir, 'consolidated.00.pth')));
    await expect(openModel(empty)).rejects.toMatchObject({ code: 'BAD_FORMAT', message: expect.stringContaining('no params.json') });
    const shard = fs.readFileSync(path.join(dir, 'consolidated.01.pth'));
    await expect(openModel([file('params.json'), file('consolidated.00.pth'), file('consolidated.01.pth', shard.subarray(0, shard.length - 5000))]))
      .rejects.toMatchObject({ code: expect.stringMatching(/TRUNCATED|BAD_FORMAT/) });
    await expect(openModel([file('params.json', Buffer.alloc(2 * 1024 * 1024, 0x20)), file('consolidated.00.pth')]))
      .rejects.toMatchObject({ code: 'TOO_LARGE', message: expect.stringContaining('params.json of 2097152 bytes') });
    await expect(openModel([file('params.json', Buffer.from('{"dim": 64}')), file('consolidated.00.pth'), file('consolidated.01.pth')]))
      .rejects.toMatchObject({ code: 'BAD_FORMAT', message: expect.stringContaining('n_layers') });
  });
});
