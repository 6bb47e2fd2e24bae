// The new architectures through the JS API: inspect()'s decoder facts, and a
// session of a sliding-window model (Gemma 3 test model: window 8, rings of
// 264 positions) reusing its prompt prefix, starting over when its rings no
// longer hold the point to go back to, and saving/restoring its state, each
// giving the tokens of a fresh session.
import { inspect, openModel, releaseWasmModules } from '../../web/src/index.js';
import { ensureDecoderModel } from '../models/decoder-models.js';
import { describeWithTestdata, TESTDATA, testdataPath } from './helpers/testdata.js';

const ids = (n, seed) => Array.from({ length: n }, (_, i) => 3 + ((i * 131 + seed * 17) % 509));
const greedy = { temperature: 0, ignoreEos: true };

describeWithTestdata('decoder architectures through the JS API', () => {
  afterAll(() => releaseWasmModules());

  test('inspect() tells how each architecture runs', async () => {
    const gemma3 = (await inspect(ensureDecoderModel('gemma3', 'F32', TESTDATA))).architecture.decoder;
    expect(gemma3).toMatchObject({
      architecture: 'gemma3', norms: 'pre+post', qkNorm: 'per-head', rope: 'neox', activation: 'gelu-tanh',
      layers: 12, slidingWindow: 8, windowedLayers: 10, ropeBase: 1e6, ropeScale: 0.125, windowRopeBase: 10000,
      windowRopeScale: 1, tiedOutput: true, fusedQkv: false, finalSoftcap: 0, queryScale: 0.125,
      embeddingScale: Math.fround(Math.sqrt(128)), kvCacheF16: { bytesPerPosition: 2 * 2 * 64 * 2, windowedBytesPerPosition: 10 * 2 * 64 * 2, ringPositions: 264 },
    });
    const phi = (await inspect(ensureDecoderModel('phi3-longrope', 'Q8_0', TESTDATA))).architecture.decoder;
    expect(phi).toMatchObject({ architecture: 'phi3', fusedQkv: true, fusedGateUp: true, ropeDimensions: 24, headDim: 32,
      longRope: true, slidingWindow: 0, activation: 'silu' });
    expect(phi.ropeAttnFactor).toBeCloseTo(Math.sqrt(1 + Math.log(4) / Math.log(256)), 6);
    const qwen2 = (await inspect(ensureDecoderModel('qwen2', 'F32', TESTDATA))).architecture.decoder;
    expect(qwen2).toMatchObject({ architecture: 'qwen2', qkvBias: true, rope: 'neox', norms: 'pre' });
    // Not a decoder we run, and a decoder whose keys do not fit.
    expect((await inspect(testdataPath('tokenizers/llamacpp-vocab/ggml-vocab-gpt-2.gguf'))).architecture.decoder).toBeNull();
    const bad = (await inspect(testdataPath('hostile/stories260K-head_count_kv-65536.gguf'))).architecture.decoder;
    expect(bad.error).toMatchObject({ code: 'BAD_FORMAT', message: expect.stringContaining('head_count') });
  });

  test('a sliding-window session reuses its prefix, starts over when its rings cannot go back, and restores states', async () => {
    const file = ensureDecoderModel('gemma3', 'F32', TESTDATA);
    const model = await openModel(file, { contextLength: 1024 });
    const fresh = await openModel(file, { contextLength: 1024 });
    const solo = async (prompt) => {
      fresh.reset();
      return (await fresh.complete(prompt, { ...greedy, maxTokens: 6 })).tokens;
    };
    try {
      expect(model.architecture).toBe('gemma3');
      const a = ids(300, 1);
      const first = await model.complete(a, { ...greedy, maxTokens: 5 });
      expect(first.cachedPromptTokens).toBe(0);
      const state = model.saveState();

      // The next prompt shares 303 positions with the context (it went 4 past them).
      const next = [...a, ...first.tokens.slice(0, 3), ...ids(5, 2)];
      const second = await model.complete(next, { ...greedy, maxTokens: 6 });
      expect(second.cachedPromptTokens).toBe(303);
      expect(second.tokens).toEqual(await solo(next));

      // Back to position 20: its window was overwritten in the rings: evaluated again, same tokens.
      const early = [...a.slice(0, 20), ...ids(4, 3)];
      const third = await model.complete(early, { ...greedy, maxTokens: 6 });
      expect(third.cachedPromptTokens).toBe(0);
      expect(third.tokens).toEqual(await solo(early));

      // The state saved after the first reply continues as the context did then.
      model.loadState(state);
      const restored = await model.complete(next, { ...greedy, maxTokens: 6 });
      expect(restored.cachedPromptTokens).toBe(303);
      expect(restored.tokens).toEqual(second.tokens);
    } finally {
      model.dispose();
      fresh.dispose();
    }
  }, 60000);
});
