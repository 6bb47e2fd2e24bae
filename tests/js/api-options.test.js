// Options and arguments are checked before any work: a bad value is
// BAD_OPTION naming the option (never INTERNAL, a silent default or a
// trap), through the worker and on an openModel session alike. Text with
// lone UTF-16 surrogates goes in as TextEncoder would encode it (U+FFFD).
// Property tests: any option value is accepted or refused with BAD_OPTION.
import fs from 'node:fs';
import fc from 'fast-check';
import { inspect, loadModel, openModel, releaseWasmModules } from '../../web/src/index.js';
import { checkGenerateOptions, checkModelOptions } from '../../web/src/options.js';
import { describeWithTestdata, STORIES_GGUF, testdataPath } from './helpers/testdata.js';

const PROMPT = 'Once upon a time';
const GREEDY = { temperature: 0, maxTokens: 12, ignoreEos: true };

const BAD_GENERATE = [
  ['maxTokens', -1], ['maxTokens', NaN], ['maxTokens', '5'], ['maxTokens', 1.5],
  ['temperature', NaN], ['temperature', '0.5'], ['temperature', Infinity],
  ['topK', 2.5], ['topK', 'all'], ['topP', 1.5], ['topP', -0.1], ['minP', NaN], ['minP', 2],
  ['repeatPenalty', 0], ['repeatPenalty', -1], ['presencePenalty', NaN], ['frequencyPenalty', Infinity],
  ['penaltyLastN', -2], ['penaltyLastN', 0.5],
  ['seed', -1], ['seed', 1.5], ['seed', '42'], ['seed', 2 ** 60], ['seed', -1n], ['seed', 2n ** 64n],
  ['stop', 5], ['stop', [5]], ['stop', ['']], ['stop', { a: 1 }],
  ['logitBias', 5], ['logitBias', [[1]]], ['logitBias', [[1, NaN]]], ['logitBias', [['a', 1]]], ['logitBias', [[1e9, 1]]],
  ['logitBias', [[-1, 1]]], ['logitBias', new Set([1])], ['logitBias', { 1: 'x' }], ['logitBias', [[1, Infinity]]],
  ['ignoreEos', 'yes'], ['addBos', 1], ['parseSpecial', 'true'], ['signal', {}], ['max_tokens', 5],
];

const BAD_LOAD = [
  ['contextLength', 0], ['contextLength', -1], ['contextLength', NaN], ['contextLength', 1.5], ['contextLength', '512'],
  ['contextLength', 2 ** 40], ['threads', 0], ['threads', -2], ['threads', NaN], ['threads', 1000], ['threads', '2'],
  ['kvCache', 'q8'], ['retries', -1], ['retryDelay', NaN], ['readTimeout', 0], ['readTimeout', -5],
  ['cache', 'yes'], ['memoryCheck', 0], ['onProgress', 'print'], ['signal', 'stop'], ['quantize', 8],
  ['context_length', 512],
];

describe('option checks', () => {
  test.each(BAD_GENERATE)('generate option %s = %p is BAD_OPTION naming it', (name, value) => {
    expect(() => checkGenerateOptions({ [name]: value }, { nVocab: 512 }))
      .toThrow(expect.objectContaining({ name: 'WasmLMError', code: 'BAD_OPTION', message: expect.stringContaining(name) }));
  });

  test.each(BAD_LOAD)('load option %s = %p is BAD_OPTION naming it', (name, value) => {
    for (const worker of [false, true]) {
      expect(() => checkModelOptions({ [name]: value }, { worker }))
        .toThrow(expect.objectContaining({ code: 'BAD_OPTION', message: expect.stringContaining(name) }));
    }
  });

  test('the documented shapes are accepted and normalized', () => {
    const o = checkGenerateOptions({ stop: 'x', seed: 2n ** 63n, logitBias: { 5: -Infinity, 7: 1 }, maxTokens: 0 }, { nVocab: 512 });
    expect(o).toMatchObject({ stop: ['x'], seed: 2n ** 63n, logitBias: [[5, -Infinity], [7, 1]], maxTokens: 0 });
    expect(checkGenerateOptions({ logitBias: new Map([[3, 2]]) }).logitBias).toEqual([[3, 2]]);
    expect(checkGenerateOptions({}).maxTokens).toBe(256);
    expect(checkGenerateOptions(o, { nVocab: 512 })).toEqual(o); // checking again changes nothing
    expect(checkModelOptions({ threads: 'auto' }, { worker: true })).toMatchObject({ threads: 'auto', contextLength: 2048 });
    expect(() => checkModelOptions({ threads: 'auto' })).toThrow(expect.objectContaining({ code: 'BAD_OPTION' }));
  });

  test('property: any value of any option is accepted or refused with BAD_OPTION', () => {
    const anyValue = fc.oneof(fc.anything(), fc.double(), fc.bigInt(), fc.integer(), fc.constantFrom(NaN, Infinity, -Infinity, -0, 2 ** 64));
    const keys = fc.constantFrom(...new Set([...BAD_GENERATE.map(([k]) => k), 'unknown']));
    fc.assert(fc.property(fc.dictionary(keys, anyValue, { maxKeys: 4 }), (options) => {
      try {
        checkGenerateOptions(options, { nVocab: 512 });
      } catch (error) {
        expect(error).toMatchObject({ name: 'WasmLMError', code: 'BAD_OPTION' });
      }
    }), { numRuns: 2000 });
    const loadKeys = fc.constantFrom(...new Set([...BAD_LOAD.map(([k]) => k), 'fetch', 'tokenizer']));
    fc.assert(fc.property(fc.dictionary(loadKeys, anyValue, { maxKeys: 4 }), fc.boolean(), (options, worker) => {
      try {
        checkModelOptions(options, { worker });
      } catch (error) {
        expect(error).toMatchObject({ name: 'WasmLMError', code: 'BAD_OPTION' });
      }
    }), { numRuns: 2000 });
  });
});

describeWithTestdata('bad options and arguments on a real model', () => {
  let lm;
  let session;
  beforeAll(async () => {
    lm = await loadModel(testdataPath(STORIES_GGUF), { threads: 1, contextLength: 256 });
    session = await openModel(testdataPath(STORIES_GGUF), { contextLength: 256 });
  });
  afterAll(async () => {
    await lm?.dispose();
    session?.dispose();
    releaseWasmModules();
  });

  test.each([
    ['[NaN]', [NaN]], ['[]', []], ['[-1]', [-1]], ['[512] (past the vocabulary)', [512]], ['[1.5]', [1.5]], ['{}', {}], ['null', null],
  ])('prompt ids %s are BAD_OPTION, through the worker and directly', async (_, prompt) => {
    await expect(lm.complete(prompt, GREEDY)).rejects.toMatchObject({ code: 'BAD_OPTION' });
    await expect(session.complete(prompt, GREEDY)).rejects.toMatchObject({ code: 'BAD_OPTION' });
  });

  test('bad generate options reject through the worker and the session, and nothing ran', async () => {
    for (const [name, value] of [['maxTokens', -1], ['seed', 'x'], ['logitBias', [[9999, 1]]], ['stop', [null]]]) {
      await expect(lm.complete(PROMPT, { [name]: value })).rejects.toMatchObject({ code: 'BAD_OPTION' });
      await expect(session.complete(PROMPT, { [name]: value })).rejects.toMatchObject({ code: 'BAD_OPTION' });
    }
    await expect(lm.chat('hello').next()).rejects.toMatchObject({ code: 'BAD_OPTION', message: expect.stringMatching(/messages/) });
    await expect(lm.chat([{ content: 'x' }]).next()).rejects.toMatchObject({ code: 'BAD_OPTION' });
    await expect(lm.tokenize(42)).rejects.toMatchObject({ code: 'BAD_OPTION' });
    await expect(lm.detokenize([1, 'a'])).rejects.toMatchObject({ code: 'BAD_OPTION' });
    await expect(lm.complete(PROMPT, { onPiece: () => {} })).rejects.toMatchObject({ code: 'BAD_OPTION' });
  });

  test('bad load options reject before anything loads', async () => {
    for (const [name, value] of [['contextLength', 0], ['contextLength', NaN], ['threads', -1], ['kvCache', 'q4']]) {
      await expect(loadModel(testdataPath(STORIES_GGUF), { [name]: value })).rejects.toMatchObject({ code: 'BAD_OPTION' });
      await expect(openModel(testdataPath(STORIES_GGUF), { [name]: value })).rejects.toMatchObject({ code: 'BAD_OPTION' });
    }
    await expect(openModel([])).rejects.toMatchObject({ code: 'BAD_OPTION' });
    await expect(openModel(42)).rejects.toMatchObject({ code: 'BAD_OPTION' });
  });

  test('maxTokens 0 generates no tokens (the prompt is still evaluated)', async () => {
    for (const model of [lm, session]) {
      const r = await model.complete(PROMPT, { temperature: 0, maxTokens: 0 });
      expect(r).toMatchObject({ tokens: [], text: '', finishReason: 'length', promptTokens: 5 });
    }
    expect(session.nPast).toBe(5);
  });

  test('seed as a BigInt gives the same draws as the same number', async () => {
    const options = { temperature: 1, maxTokens: 16, ignoreEos: true };
    const a = await lm.complete(PROMPT, { ...options, seed: 1234 });
    const b = await lm.complete(PROMPT, { ...options, seed: 1234n });
    const c = await session.complete(PROMPT, { ...options, seed: 1234n });
    expect(b.tokens).toEqual(a.tokens);
    expect(c.tokens).toEqual(a.tokens);
    const big = await lm.complete(PROMPT, { ...options, seed: 2n ** 64n - 2n });
    expect(big.tokens).toHaveLength(16);
  });

  test('logitBias in each documented shape bans the same token', async () => {
    const free = await session.complete(PROMPT, GREEDY);
    const banned = free.tokens[0];
    for (const logitBias of [[[banned, -Infinity]], new Map([[banned, -Infinity]]), { [banned]: -Infinity }]) {
      const r = await lm.complete(PROMPT, { ...GREEDY, logitBias });
      expect(r.tokens[0]).not.toBe(banned);
      expect(r.tokens).not.toContain(banned);
    }
  });

  test('lone surrogates in prompts and stop strings become U+FFFD, as TextEncoder encodes them', async () => {
    const lone = 'Once\uD800 upon a \uDC00time';
    const replaced = 'Once\uFFFD upon a \uFFFDtime';
    expect(new TextDecoder().decode(new TextEncoder().encode(lone))).toBe(replaced);
    expect(await lm.tokenize(lone)).toEqual(await lm.tokenize(replaced));
    expect(session.tokenizer.encode(lone)).toEqual(session.tokenizer.encode(replaced));
    // The character after a lone high surrogate is kept (it used to be swallowed).
    expect(await lm.detokenize(await lm.tokenize('a\uD800b'))).toBe('a\uFFFDb');
    const want = await session.complete(replaced, GREEDY);
    expect((await lm.complete(lone, GREEDY)).tokens).toEqual(want.tokens);
    const stopped = await session.complete(PROMPT, { ...GREEDY, stop: ['\uD800'] });
    expect(stopped.tokens.length).toBeGreaterThan(0);
  });
});

describeWithTestdata('non-finite logits', () => {
  afterAll(() => releaseWasmModules());

  test('a model whose output weights hold NaN fails with a typed error that says so', async () => {
    const bytes = new Uint8Array(fs.readFileSync(testdataPath(STORIES_GGUF)));
    const info = await inspect(bytes);
    const norm = info.tensors.find((t) => t.name === 'output_norm.weight');
    expect(norm.type).toBe('F32');
    new Float32Array(bytes.buffer, bytes.byteOffset + norm.offset, 4).fill(NaN);
    const session = await openModel(bytes, { contextLength: 64 });
    try {
      await expect(session.complete(PROMPT, GREEDY)).rejects.toMatchObject({
        name: 'WasmLMError', code: 'BAD_FORMAT', message: expect.stringMatching(/non-finite logits \(512 of 512/),
      });
    } finally {
      session.dispose();
    }
  });
});
