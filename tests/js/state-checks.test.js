// loadState checks what it loads: a state of another model, one that does
// not fit the context, an altered or cut blob, or a token list that
// disagrees with it is a typed error, and the session stays as it was.
import fs from 'node:fs';
import { inspect, loadModel, openModel, releaseWasmModules } from '../../web/src/index.js';
import { describeWithTestdata, STORIES_GGUF, testdataPath } from './helpers/testdata.js';

const GREEDY = { temperature: 0, maxTokens: 30, ignoreEos: true };

describeWithTestdata('loadState refuses what does not belong', () => {
  let session;
  let state;
  beforeAll(async () => {
    session = await openModel(testdataPath(STORIES_GGUF), { contextLength: 256 });
    await session.complete('Once upon a time', GREEDY);
    state = session.saveState();
  });
  afterAll(() => {
    session?.dispose();
    releaseWasmModules();
  });

  const altered = (mutate) => {
    const kv = state.kv.slice();
    const tokens = state.tokens.slice();
    mutate(kv, tokens);
    return { ...state, kv, tokens };
  };

  const cases = [
    ['a flipped byte in the context', () => altered((kv) => { kv[kv.length >> 1] ^= 0x40; }), 'BAD_FORMAT', /checksum/],
    ['a flipped byte in the token list', () => altered((kv) => { kv[24] ^= 1; }), 'BAD_FORMAT', /checksum/],
    ['a cut blob', () => ({ ...state, kv: state.kv.slice(0, state.kv.length - 100) }), 'TRUNCATED', /ends before/],
    ['an empty blob', () => ({ ...state, kv: new Uint8Array(0) }), 'TRUNCATED', /header/],
    ['a token list that disagrees', () => altered((kv, tokens) => { tokens[3] = (tokens[3] + 1) % 512; }), 'BAD_FORMAT', /token list/],
    ['a shorter token list', () => ({ ...state, tokens: state.tokens.slice(0, -1) }), 'BAD_FORMAT', /token list/],
    ['token ids outside the vocabulary', () => ({ ...state, tokens: [...state.tokens.slice(0, -1), 99999] }), 'BAD_OPTION', /tokens/],
    ['another object', () => ({ format: 'nope' }), 'BAD_FORMAT', /not a state/],
    ['an older format', () => ({ ...state, format: 'wasmlm-state-1' }), 'UNSUPPORTED', /older wasmlm/],
  ];

  test.each(cases)('%s is a typed error, and the session is unchanged', (_, make, code, message) => {
    const before = { tokens: session.tokens, logits: session.logits(), nPast: session.nPast };
    expect(() => session.loadState(make())).toThrow(expect.objectContaining({ name: 'WasmLMError', code, message: expect.stringMatching(message) }));
    expect(session.tokens).toEqual(before.tokens);
    expect(session.nPast).toBe(before.nPast);
    expect(session.logits()).toEqual(before.logits);
  });

  test('the untouched state still loads and continues as before', async () => {
    const want = await session.complete(state.tokens, GREEDY);
    session.reset();
    session.loadState(state);
    const again = await session.complete(state.tokens, GREEDY);
    expect(again.cachedPromptTokens).toBe(state.tokens.length);
    expect(again.tokens).toEqual(want.tokens);
  });

  test('a state of another model (same shapes, other weights) is refused', async () => {
    const bytes = new Uint8Array(fs.readFileSync(testdataPath(STORIES_GGUF)));
    const embedding = (await inspect(bytes)).tensors.find((t) => t.name === 'token_embd.weight');
    new Float32Array(bytes.buffer, embedding.offset, 1)[0] += 0.5;
    const other = await openModel(bytes, { contextLength: 256 });
    try {
      expect(() => other.loadState(state)).toThrow(expect.objectContaining({ code: 'BAD_FORMAT', message: expect.stringMatching(/another model/) }));
      expect(other.nPast).toBe(0);
    } finally {
      other.dispose();
    }
  });

  test('a state longer than the context is TOO_LARGE', async () => {
    const small = await openModel(testdataPath(STORIES_GGUF), { contextLength: 16 });
    try {
      expect(() => small.loadState(state)).toThrow(expect.objectContaining({ code: 'TOO_LARGE' }));
      expect(small.nPast).toBe(0);
    } finally {
      small.dispose();
    }
  });

  test('through the worker: the same checks, the model unchanged', async () => {
    const lm = await loadModel(testdataPath(STORIES_GGUF), { threads: 1, contextLength: 256 });
    try {
      await lm.loadState(state);
      const bad = altered((kv) => { kv[kv.length - 9] ^= 1; });
      await expect(lm.loadState(bad)).rejects.toMatchObject({ code: 'BAD_FORMAT' });
      const r = await lm.complete(state.tokens, GREEDY);
      expect(r.cachedPromptTokens).toBe(state.tokens.length);
    } finally {
      await lm.dispose();
    }
  });
});
