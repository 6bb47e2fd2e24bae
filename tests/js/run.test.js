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
  // llama.cpp's logits with its default F16 KV cache (as our default) and with an F32 one.
  const f16kvLogits = readFloats(testdataPath('llama/stories260K/reference/stories260K.logits.f32'));
  const f32kvLogits = readFloats(testdataPath('pytorch/meta-stories260K/ref/stories260K-F32.f32kv.logits.f32'));

  afterAll(() => releaseWasmModules());

  test.each([[1, 'f16'], [2, 'f16'], [1, 'f32'], [2, 'f32']])('wasmlm run --threads %i --kv %s gives llama.cpp\'s greedy tokens and logits', async (threads, kv) => {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wasmlm-')), 'logits.f32');
    const { stdout } = await run('node', ['web/bin/wasmlm.js', 'run', testdataPath(STORIES_GGUF), '--prompt-ids', PROMPT.join(','),
      '--n', '32', '--threads', String(threads), '--kv', kv, '--logits', out, '--json'], { cwd: REPO_ROOT });
    const result = JSON.parse(stdout);
    expect(result.prompt_ids).toEqual(PROMPT);
    expect(result.ids).toEqual(greedy);
    expect(result.timings.threads).toBe(threads);
    const logits = readFloats(out);
    expect(logits.length).toBe(512);
    const reference = kv === 'f16' ? f16kvLogits : f32kvLogits;
    let maxDiff = 0;
    logits.forEach((v, i) => { maxDiff = Math.max(maxDiff, Math.abs(v - reference[i])); });
    expect(maxDiff).toBeLessThan(kv === 'f16' ? 1e-3 : 1e-4); // measured: 2.5e-4 and 4.8e-6
  }, 60000);

  // As llama.cpp shows generated text: its detokenization of prompt +
  // generated minus the prompt's, so the first piece keeps its SentencePiece
  // space (llama.cpp prints " time, there was" here).
  test('the first generated piece keeps its leading space, in text and in --json', async () => {
    const args = ['web/bin/wasmlm.js', 'run', testdataPath(STORIES_GGUF), '--prompt', 'Once upon a', '--n', '4', '--temp', '0'];
    const { stdout } = await run('node', args, { cwd: REPO_ROOT });
    expect(stdout).toBe(' time, there was\n');
    const result = JSON.parse((await run('node', [...args, '--json'], { cwd: REPO_ROOT })).stdout);
    expect(result.text).toBe(' time, there was');
    const model = await openModel(testdataPath(STORIES_GGUF), { contextLength: 32 });
    try {
      const decode = (ids) => model.tokenizer.decode(ids);
      expect(result.text).toBe(decode([...result.prompt_ids, ...result.ids]).slice(decode(result.prompt_ids).length));
      expect((await model.complete('Once upon a', { maxTokens: 4, temperature: 0 })).text).toBe(' time, there was');
    } finally {
      model.dispose();
    }
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

  test('llama-2-tiny-random (F16, the full 32000-token LLaMA-2 vocab) matches llama.cpp', async () => {
    const dir = 'llama/tiny-random';
    const reference = JSON.parse(fs.readFileSync(testdataPath(`${dir}/reference/reference-output.json`), 'utf8'));
    const refLogits = readFloats(testdataPath(`${dir}/reference/llama-2-tiny-random.logits.f32`));
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wasmlm-')), 'logits.f32');
    const { stdout } = await run('node', ['web/bin/wasmlm.js', 'run', testdataPath(`${dir}/llama-2-tiny-random.gguf`), '--prompt', reference.prompt,
      '--n', String(reference.greedy_ids.length), '--logits', out, '--json'], { cwd: REPO_ROOT });
    const result = JSON.parse(stdout);
    expect(result.prompt_ids).toEqual(reference.prompt_ids);
    expect(result.ids).toEqual(reference.greedy_ids);
    expect(result.text).toBe(reference.greedy_text);
    // The rule for F16 files: max |diff| <= 1e-3 x the reference's logit range.
    const logits = readFloats(out);
    let maxDiff = 0, lo = Infinity, hi = -Infinity;
    refLogits.forEach((v, i) => { maxDiff = Math.max(maxDiff, Math.abs(logits[i] - v)); lo = Math.min(lo, v); hi = Math.max(hi, v); });
    expect(logits.length).toBe(reference.n_vocab);
    expect(maxDiff).toBeLessThanOrEqual(1e-3 * (hi - lo));
  }, 60000);

  test('openModel() evaluates incrementally and reset() starts over', async () => {
    const model = await openModel(testdataPath(STORIES_GGUF), { contextLength: 16 });
    try {
      expect(model.nVocab).toBe(512);
      const all = model.eval(PROMPT);
      model.reset();
      expect(model.eval(PROMPT.slice(0, 3), { logits: false })).toBeUndefined();
      const split = model.eval(PROMPT.slice(3));
      expect(model.nPast).toBe(5);
      expect(Array.from(split)).toEqual(Array.from(all));
      expect(Array.from(model.logits())).toEqual(Array.from(all));
    } finally {
      model.dispose();
    }
  });

  test('an architecture we do not run (named, with the ones we do), or a full context, is a typed error', async () => {
    await expect(openModel(testdataPath('tokenizers/llamacpp-vocab/ggml-vocab-gpt-2.gguf'))).rejects.toMatchObject({
      code: 'UNSUPPORTED', message: expect.stringMatching(/architecture 'gpt2' is not supported \(supported: llama, qwen2, qwen3, gemma2, gemma3, phi3, .*rwkv7\)/),
    });
    const model = await openModel(testdataPath(STORIES_GGUF), { contextLength: 4 });
    try {
      expect(() => model.eval(PROMPT)).toThrow(expect.objectContaining({ code: 'TOO_LARGE' }));
    } finally {
      model.dispose();
    }
  });
});
