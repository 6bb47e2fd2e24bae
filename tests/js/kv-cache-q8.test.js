// kvCache: 'q8_0' (llama.cpp's --cache-type-k/v q8_0) through the JS API:
// 17/32 of an F16 cache's memory, estimated before the load as allocated
// after it; the same tokens batched or one at a time; a saved state restores
// only into a context of the same cache type; a head size that Q8_0 blocks
// do not divide is refused by name.
import { openModel, releaseWasmModules } from '../../web/src/index.js';
import { estimateModelMemory } from '../../web/src/model/memory-check.js';
import { ensureDecoderModel } from '../models/decoder-models.js';
import { describeWithTestdata, TESTDATA, testdataPath } from './helpers/testdata.js';

const ids = (n, seed) => Array.from({ length: n }, (_, i) => 3 + ((i * 131 + seed * 17) % 509));
const greedy = { temperature: 0, ignoreEos: true };

describeWithTestdata('a Q8_0 KV cache', () => {
  afterAll(() => releaseWasmModules());

  test('takes 17/32 of the F16 cache, as estimated, and gives the same tokens batched or one by one', async () => {
    const file = ensureDecoderModel('qwen3', 'F32', TESTDATA);
    const q8 = await openModel(file, { contextLength: 512, kvCache: 'q8_0' });
    const f16 = await openModel(file, { contextLength: 512 });
    try {
      const [a, b] = [q8.describe().memory.kvCacheBytes, f16.describe().memory.kvCacheBytes];
      expect(a / b).toBeGreaterThan(0.52);
      expect(a / b).toBeLessThan(0.54);
      const estimate = estimateModelMemory(q8.describe(), { contextLength: 512, kvCache: 'q8_0' }).kvCache;
      expect(Math.abs(estimate - a) / a).toBeLessThan(0.02);

      const prompt = ids(40, 1);
      const batched = (await q8.complete(prompt, { ...greedy, maxTokens: 8 })).tokens;
      q8.reset();
      for (const id of prompt.slice(0, -1)) q8.eval([id], { logits: false });
      const rest = (await q8.complete(prompt, { ...greedy, maxTokens: 8 }));
      expect(rest.cachedPromptTokens).toBe(39);
      expect(rest.tokens).toEqual(batched);

      // A state saved with Q8_0 restores into Q8_0 only.
      const state = q8.saveState();
      await expect(async () => f16.loadState(state)).rejects.toMatchObject({ code: 'BAD_FORMAT', message: expect.stringContaining('Q8_0') });
      const again = await openModel(file, { contextLength: 512, kvCache: 'q8_0' });
      try {
        again.loadState(state);
        expect(again.nPast).toBe(q8.nPast);
      } finally {
        again.dispose();
      }
    } finally {
      q8.dispose();
      f16.dispose();
    }
  });

  test('a head size Q8_0 blocks do not divide is refused by name', async () => {
    // stories260K: 8 heads of 8
    await expect(openModel(testdataPath('llama/stories260K/stories260K.gguf'), { kvCache: 'q8_0' }))
      .rejects.toMatchObject({ code: 'UNSUPPORTED', message: expect.stringContaining('multiple of 32') });
  });
});
