// quantize: 'TYPE' on GGUF files (openModel and loadModel): float matrices
// of F32, F16 and BF16 files take the type, or llama-quantize's fallback
// where their rows cannot hold it, and describe() / info say which got what.
// (The bytes equal llama-quantize's: tests/native/quantize_on_load_test.cpp.)
import { loadModel, openModel, releaseWasmModules } from '../../web/src/index.js';
import { describeWithTestdata, STORIES_GGUF, testdataPath } from './helpers/testdata.js';

const PROMPT = [1, 403, 407, 261, 378]; // <s> Once upon a time
const F16_FILE = 'llama/stories260K/derived/stories260K-lq-F16.gguf';

async function opened(file, options = {}) {
  const model = await openModel(testdataPath(file), { contextLength: 32, ...options });
  try {
    const logits = model.eval(PROMPT);
    return { logits, summary: model.describe() };
  } finally {
    model.dispose();
  }
}

const typeOf = (summary, name) => summary.tensors.find((t) => t.name === name).type;

describeWithTestdata('quantize on load for GGUF files', () => {
  afterAll(() => releaseWasmModules());

  test('an F16 file quantized to Q8_0 takes Q8_0\'s size; 172-wide rows stay F16; describe() says which', async () => {
    const plain = await opened(F16_FILE);
    const q8 = await opened(F16_FILE, { quantize: 'Q8_0' });
    expect(plain.summary.quantization).toBeNull();
    expect(q8.summary.memory.weightBytes).toBeLessThan(0.7 * plain.summary.memory.weightBytes);
    expect(typeOf(q8.summary, 'blk.0.attn_q.weight')).toBe('Q8_0');
    expect(typeOf(q8.summary, 'token_embd.weight')).toBe('Q8_0');
    expect(typeOf(q8.summary, 'blk.0.ffn_down.weight')).toBe('F16');
    expect(q8.summary.quantization.requested).toBe('Q8_0');
    const byName = Object.fromEntries(q8.summary.quantization.tensors.map((t) => [t.name, t]));
    expect(byName['blk.0.attn_q.weight']).toEqual({ name: 'blk.0.attn_q.weight', from: 'F16', to: 'Q8_0' });
    expect(byName['blk.0.ffn_down.weight']).toBeUndefined();
    expect(q8.summary.quantization.tensors).toHaveLength(2 + 6 * 5);
    expect(q8.summary.bytesByType.Q8_0).toBeGreaterThan(0);
    // Quantized, yet the same model: the top token, logits near F16's.
    const argmax = (x) => x.indexOf(Math.max(...x));
    expect(argmax(q8.logits)).toBe(argmax(plain.logits));
  });

  test('Q4_K on 64-wide rows falls back to Q5_0 and 172-wide F32 rows to F16, as llama-quantize does', async () => {
    const { summary } = await opened(STORIES_GGUF, { quantize: 'Q4_K' });
    const moves = new Set(summary.quantization.tensors.map((t) => `${t.from}->${t.to}`));
    expect([...moves].sort()).toEqual(['F32->F16', 'F32->Q5_0']);
    expect(typeOf(summary, 'blk.3.ffn_up.weight')).toBe('Q5_0');
    expect(typeOf(summary, 'blk.3.ffn_down.weight')).toBe('F16');
    expect(typeOf(summary, 'blk.3.ffn_norm.weight')).toBe('F32');
  });

  test('loadModel reports it in info.quantization', async () => {
    const lm = await loadModel(testdataPath(F16_FILE), { contextLength: 32, quantize: 'Q8_0' });
    try {
      expect(lm.info.quantization.requested).toBe('Q8_0');
      expect(lm.info.quantization.tensors).toHaveLength(32);
      expect(lm.info.bytesByType.Q8_0).toBeGreaterThan(0);
    } finally {
      await lm.dispose();
    }
  });
});
