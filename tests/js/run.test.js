// `wasmlm run` and openModel(): the LLaMA forward pass in wasm reproduces
// llama.cpp on stories260K (logits after the prompt, 32 greedy tokens), in
// the single-threaded and the pthreads build.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { openModel, releaseWasmModules } from '../../web/src/index.js';
import { describeWithTestdata, REPO_ROOT, STORIES_GGUF, testdataPath } from './helpers/testdata.js';

const run = promisify(execFile);
const PROMPT = [1, 403, 407, 261, 378]; // <s> Once upon a time

function readFloats(file) {
  const b = fs.readFileSync(file);
  return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
}

describeWithTestdata('running stories260K in wasm', () => {
  const reference = JSON.parse(fs.readFileSync(testdataPath('llama/stories260K/reference/reference-outputs.json'), 'utf8'));
  const greedy = reference.find((r) => r.file === 'stories260K.gguf').result.greedy_ids;
  const f32kvLogits = readFloats(testdataPath('pytorch/meta-stories260K/ref/stories260K-F32.f32kv.logits.f32'));

  afterAll(() => releaseWasmModules());

  test.each([1, 2])('wasmlm run --threads %i gives llama.cpp\'s greedy tokens and logits', async (threads) => {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wasmlm-')), 'logits.f32');
    const { stdout } = await run('node', ['web/bin/wasmlm.js', 'run', testdataPath(STORIES_GGUF), '--prompt-ids', PROMPT.join(','),
      '--n', '32', '--threads', String(threads), '--logits', out, '--json'], { cwd: REPO_ROOT });
    const result = JSON.parse(stdout);
    expect(result.prompt_ids).toEqual(PROMPT);
    expect(result.ids).toEqual(greedy);
    expect(result.timings.threads).toBe(threads);
    const logits = readFloats(out);
    expect(logits.length).toBe(512);
    let maxDiff = 0;
    logits.forEach((v, i) => { maxDiff = Math.max(maxDiff, Math.abs(v - f32kvLogits[i])); });
    expect(maxDiff).toBeLessThan(1e-4);
  }, 60000);

  const runIds = async (extra) => {
    const { stdout } = await run('node', ['web/bin/wasmlm.js', 'run', testdataPath(STORIES_GGUF), '--prompt-ids', PROMPT.join(','),
      '--n', '32', '--json', ...extra], { cwd: REPO_ROOT });
    return JSON.parse(stdout).ids;
  };

  test('seeded sampling repeats across builds; top-k 1 is greedy; seeds differ', async () => {
    const a = await runIds(['--temp', '1', '--seed', '42']);
    expect(await runIds(['--temp', '1', '--seed', '42', '--threads', '2'])).toEqual(a);
    expect(await runIds(['--temp', '1', '--seed', '43'])).not.toEqual(a);
    expect(await runIds(['--temp', '1', '--top-k', '1', '--seed', '5'])).toEqual(greedy);
  }, 60000);

  test('openModel() evaluates incrementally and reset() starts over', async () => {
    const model = await openModel(testdataPath(STORIES_GGUF), { contextLength: 16 });
    try {
      expect(model.nVocab).toBe(512);
      const all = model.eval(PROMPT);
      model.reset();
      model.eval(PROMPT.slice(0, 3));
      const split = model.eval(PROMPT.slice(3));
      expect(model.nPast).toBe(5);
      expect(Array.from(split)).toEqual(Array.from(all));
    } finally {
      model.dispose();
    }
  });

  test('a model that is not LLaMA, or a full context, is a typed error', async () => {
    await expect(openModel(testdataPath('rwkv/tiny-rwkv-5v2-730K-FP32.bin'))).rejects.toMatchObject({ code: 'UNSUPPORTED' });
    const model = await openModel(testdataPath(STORIES_GGUF), { contextLength: 4 });
    try {
      expect(() => model.eval(PROMPT)).toThrow(expect.objectContaining({ code: 'TOO_LARGE' }));
    } finally {
      model.dispose();
    }
  });
});
