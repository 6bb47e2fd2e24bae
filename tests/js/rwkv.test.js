// RWKV in wasm through the same JS API as LLaMA: rwkv.cpp's tiny-model pass
// rule (rwkv/EXPECTED.md) for the FP32 files through openModel(), a Q5_1 file
// and on-the-fly quantization through `wasmlm run`, the recurrent state saved
// and restored, and generation through the Worker API (loadModel).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadModel, openModel, releaseWasmModules } from '../../web/src/index.js';
import { describeWithTestdata, REPO_ROOT, testdataPath } from './helpers/testdata.js';

const run = promisify(execFile);
const PROMPT = [34, 105, 110]; // "in

function readFloats(file) {
  const b = fs.readFileSync(file);
  return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
}

function sumOfDifferences(logits, expected) {
  let sum = 0, max = 0;
  expected.forEach((e, i) => { sum += logits[i] - e; max = Math.max(max, Math.abs(logits[i] - e)); });
  return { sum, max };
}

describeWithTestdata('RWKV in wasm', () => {
  const expected = (version) => readFloats(testdataPath(`rwkv/expected-logits-${version}.bin`));
  afterAll(() => releaseWasmModules());

  test.each(['4v0-660K', '5v1-730K', '5v2-730K', '6v0-1m', '7v0-834K'])('%s FP32 meets rwkv.cpp\'s rule, fed one by one and as a sequence', async (version) => {
    const model = await openModel(testdataPath(`rwkv/tiny-rwkv-${version}-FP32.bin`));
    try {
      expect(model.architecture).toBe('rwkv');
      expect(model.contextLength).toBe(Infinity);
      const sequence = model.eval(PROMPT);
      model.reset();
      let oneByOne;
      for (const id of PROMPT) oneByOne = model.eval([id]);
      for (const logits of [sequence, oneByOne]) {
        const { sum, max } = sumOfDifferences(logits, expected(version));
        expect(Math.abs(sum)).toBeLessThanOrEqual(0.001 * 1.05);
        expect(max).toBeLessThanOrEqual(2e-3);
      }
    } finally {
      model.dispose();
    }
  });

  test.each([
    ['5v2-730K-Q5_1', [], 48.068733],              // a quantized file
    ['5v2-730K-FP32', ['--quantize', 'Q5_1'], 48.068733], // quantized on load
    ['4v0-660K-FP16', ['--quantize', 'Q8_0'], 0.077226],
  ])('wasmlm run %s %j --logits meets rwkv.cpp\'s rule', async (file, extra, d) => {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wasmlm-')), 'logits.f32');
    await run('node', ['web/bin/wasmlm.js', 'run', testdataPath(`rwkv/tiny-rwkv-${file}.bin`), '--prompt-ids', PROMPT.join(','),
      '--n', '0', '--logits', out, ...extra], { cwd: REPO_ROOT });
    const { sum } = sumOfDifferences(readFloats(out), expected(file.slice(0, file.lastIndexOf('-'))));
    expect(Math.abs(sum)).toBeLessThanOrEqual(Math.abs(d) * 1.05);
    expect(Math.abs(sum)).toBeGreaterThan(0); // quantized: not the FP32 result
  }, 30000);

  test('the state saved after 20 tokens and restored gives the same next 10', async () => {
    const model = await openModel(testdataPath('rwkv/tiny-rwkv-7v0-834K-FP32.bin'));
    try {
      const options = { maxTokens: 20, temperature: 0, ignoreEos: true };
      await model.complete(PROMPT, options);
      const state = model.saveState();
      const next = await model.complete(model.tokens, { ...options, maxTokens: 10 });
      model.reset();
      model.loadState(state);
      const again = await model.complete(state.tokens, { ...options, maxTokens: 10 });
      expect(again.cachedPromptTokens).toBe(state.tokens.length);
      expect(again.tokens).toEqual(next.tokens);
      expect(new Set(next.tokens).size).toBeGreaterThan(1);
    } finally {
      model.dispose();
    }
  });

  test('loadModel (Worker API) generates from an RWKV file as from a LLaMA one', async () => {
    const lm = await loadModel(testdataPath('rwkv/tiny-rwkv-6v0-1m-FP16.bin'), { threads: 1 });
    try {
      expect(lm.info.architecture.name).toBe('rwkv');
      expect(lm.info.architecture.rwkvVersion).toBe('6');
      const ids = await lm.tokenize('Hello');
      expect(ids).toEqual([...Buffer.from('Hello')]);
      const result = await lm.complete('Hello', { maxTokens: 8, temperature: 0, ignoreEos: true });
      expect(result.tokens.length).toBe(8);
      expect(await lm.detokenize(result.tokens)).toBe(result.text);
    } finally {
      await lm.dispose();
    }
  }, 30000);

  test('a model without a vocabulary takes a tokenizer file (tokenizer option); one too large for it is refused', async () => {
    // A fixture: the World vocabulary's first 255 tokens (ids 1..255, the bytes 0x00..0xFE), which fit the 256-token model.
    const lines = fs.readFileSync(testdataPath('tokenizers/rwkv-world/rwkv_vocab_v20230424.txt'), 'utf8').split('\n');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmlm-'));
    const small = path.join(dir, 'vocab-255.txt');
    fs.writeFileSync(small, `${lines.slice(0, 255).join('\n')}\n`);
    const model = await openModel(testdataPath('rwkv/tiny-rwkv-4v0-660K-FP16.bin'), { tokenizer: small });
    try {
      expect(model.tokenizer.nVocab).toBe(256);
      expect(model.tokenizer.encode('Hi')).toEqual([0x48 + 1, 0x69 + 1]);
      const result = await model.complete('Hi', { maxTokens: 4, temperature: 0, ignoreEos: true });
      expect(result.text).toBe(model.tokenizer.decode(result.tokens));
    } finally {
      model.dispose();
    }
    await expect(openModel(testdataPath('rwkv/tiny-rwkv-4v0-660K-FP16.bin'), {
      tokenizer: testdataPath('tokenizers/rwkv-world/rwkv_vocab_v20230424.txt'),
    })).rejects.toMatchObject({ code: 'BAD_FORMAT', message: expect.stringMatching(/tokenizer has 65530 tokens, the model only 256/) });
  });
});
