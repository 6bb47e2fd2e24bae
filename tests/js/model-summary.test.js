// The summary helpers, on hand-made inputs.
import { parameterCount, rwkvVersion, unpackStrings } from '../../web/src/index.js';
import { architectureSummary, splitSummary, tokenizerSummary } from '../../web/src/model-summary.js';
import { jsonReplacer } from '../../web/src/cli/json.js';

const tensors = (...names) => names.map((name) => ({ name, shape: [4] }));

describe('rwkvVersion', () => {
  test.each([
    ['7', tensors('blocks.0.att.w0', 'blocks.0.att.a0')],
    ['6', tensors('blocks.0.att.time_maa_x', 'blocks.0.att.ln_x.weight')],
    ['5.2', tensors('blocks.0.att.ln_x.weight', 'blocks.0.att.time_faaaa')],
    ['5.1', [...tensors('blocks.0.att.ln_x.weight'), { name: 'blocks.0.att.time_first', shape: [1, 1, 8] }]],
    ['5', [...tensors('blocks.0.att.ln_x.weight'), { name: 'blocks.0.att.time_first', shape: [64] }]],
    ['4', tensors('blocks.0.att.time_first', 'blocks.0.att.key.weight')],
  ])('%s from tensor names', (version, list) => {
    expect(rwkvVersion('rwkv', list)).toBe(version);
  });

  test('from a GGUF architecture name', () => {
    expect(rwkvVersion('rwkv6', [])).toBe('6');
    expect(rwkvVersion('rwkv7', [])).toBe('7');
  });
});

test('parameterCount is a Number up to 2^53 and a BigInt beyond', () => {
  expect(parameterCount([{ shape: [64, 512] }, { shape: [64] }])).toBe(64 * 512 + 64);
  expect(parameterCount([{ shape: [2 ** 30, 2 ** 30] }, { shape: [2 ** 30, 2 ** 30] }])).toBe(2n ** 61n);
});

test('unpackStrings decodes UTF-8, replacing invalid bytes', () => {
  const packedStrings = new Uint8Array([0x61, 0xc3, 0xa9, 0xff, 0x62]);
  expect(unpackStrings({ packedStrings, offsets: new Uint32Array([0, 1, 3, 4, 5, 5]) })).toEqual(['a', 'é', '\ufffd', 'b', '']);
});

test('summaries of a file without tokenizer or split keys hold nulls', () => {
  expect(tokenizerSummary({})).toEqual({
    model: null, size: null, bos: null, eos: null, unk: null, pad: null, pre: null, addBos: null, addEos: null,
    hasChatTemplate: false,
  });
  expect(splitSummary({})).toBeNull();
  expect(splitSummary({ 'split.no': 0, 'split.count': 3, 'split.tensors.count': 291 }))
    .toEqual({ no: 0, count: 3, tensorsCount: 291 });
  expect(architectureSummary({}, []).name).toBeNull();
});

test('architectureSummary reads the ${arch}.* keys', () => {
  const a = architectureSummary({
    'general.architecture': 'qwen2',
    'qwen2.context_length': 32768,
    'qwen2.rope.freq_base': 1000000,
    'qwen2.attention.head_count_kv': 2,
  }, []);
  expect(a).toMatchObject({ name: 'qwen2', contextLength: 32768, ropeFreqBase: 1000000, headCountKv: 2, rwkvVersion: null });
});

test('JSON output turns typed arrays into arrays and BigInts into strings', () => {
  const json = JSON.stringify({ a: new Float32Array([1.5]), b: 2n ** 64n, c: new BigInt64Array([-1n]) }, jsonReplacer);
  expect(JSON.parse(json)).toEqual({ a: [1.5], b: '18446744073709551616', c: ['-1'] });
});
