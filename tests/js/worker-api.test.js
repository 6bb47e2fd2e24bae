// loadModel(): the model in a worker_thread answers like the engine run
// directly (same greedy tokens and text), streams pieces, aborts between
// tokens, stops when the consumer breaks, and sends typed errors back.
import fs from 'node:fs';
import { WasmLMError, loadModel, openModel, releaseWasmModules } from '../../web/src/index.js';
import { renderChat } from '../../web/src/worker/chat-template.js';
import { inspect } from '../../web/src/index.js';
import { describeWithTestdata, STORIES_GGUF, testdataPath } from './helpers/testdata.js';

describeWithTestdata('the worker API on stories260K', () => {
  let lm;
  beforeAll(async () => {
    lm = await loadModel(testdataPath(STORIES_GGUF), { contextLength: 256, threads: 1 });
  }, 30000);
  afterAll(async () => {
    await lm?.dispose();
    releaseWasmModules();
  });

  test('info says what loaded', () => {
    expect(lm.info).toMatchObject({ contextLength: 256, threads: 1, build: 'single-threaded', nVocab: 512, chatTemplate: null });
    expect(lm.info.architecture.name).toBe('llama');
    expect(lm.info.memory.weightBytes).toBeGreaterThan(1e6);
  });

  test('generation through the worker matches the engine run directly', async () => {
    const direct = await openModel(testdataPath(STORIES_GGUF), { contextLength: 256 });
    try {
      for (const options of [{ temperature: 0, maxTokens: 40 }, { temperature: 0.9, seed: 7, maxTokens: 40, stop: ['.'] }]) {
        const want = await direct.complete('Once upon a time', options);
        const pieces = [];
        const it = lm.generate('Once upon a time', options);
        let r;
        while (!(r = await it.next()).done) pieces.push(r.value.text);
        expect(r.value.tokens).toEqual(want.tokens);
        expect(r.value.text).toBe(want.text);
        expect(pieces.join('')).toBe(want.text);
        expect(r.value.finishReason).toBe(want.finishReason);
      }
    } finally {
      direct.dispose();
    }
  });

  test('tokenize and detokenize round-trip', async () => {
    const ids = await lm.tokenize('Once upon a time');
    expect(ids).toEqual([1, 403, 407, 261, 378]);
    expect(await lm.detokenize(ids)).toBe('Once upon a time');
  });

  test('an abort signal ends a generation with ABORTED; the worker goes on', async () => {
    const controller = new AbortController();
    const it = lm.generate('Once upon a time', { temperature: 0, maxTokens: 200, ignoreEos: true, signal: controller.signal });
    await it.next();
    controller.abort();
    await expect((async () => { for (;;) if ((await it.next()).done) return; })()).rejects.toMatchObject({ code: 'ABORTED' });
    expect((await lm.complete('Once upon a time', { temperature: 0, maxTokens: 3 })).tokens).toHaveLength(3);
  });

  test('breaking out of for await stops the generation', async () => {
    let n = 0;
    for await (const piece of lm.generate('Once upon a time', { temperature: 0, maxTokens: 200, ignoreEos: true })) {
      expect(typeof piece.text).toBe('string');
      if (++n === 3) break;
    }
    expect((await lm.complete('Once upon a time', { temperature: 0, maxTokens: 2 })).tokens).toHaveLength(2);
  });

  test('saveState/loadState cross the worker boundary', async () => {
    const first = await lm.complete([1, 403, 407, 261, 378], { temperature: 0, maxTokens: 4 });
    const state = await lm.saveState();
    expect(state.tokens.slice(0, 5)).toEqual([1, 403, 407, 261, 378]);
    await lm.reset();
    await lm.loadState(state);
    const again = await lm.complete([1, 403, 407, 261, 378], { temperature: 0, maxTokens: 4 });
    expect(again.cachedPromptTokens).toBe(4);
    expect(again.tokens).toEqual(first.tokens);
    await expect(lm.loadState({ format: 'nope' })).rejects.toMatchObject({ code: 'BAD_FORMAT' });
  });

  test('chat without a chat template is a typed error', async () => {
    const it = lm.chat([{ role: 'user', content: 'hi' }]);
    await expect(it.next()).rejects.toMatchObject({ name: 'WasmLMError', code: 'UNSUPPORTED' });
  });
});

describeWithTestdata('loadModel errors', () => {
  test('a truncated file is a typed error with the offset, across the worker boundary', async () => {
    const bytes = fs.readFileSync(testdataPath(STORIES_GGUF)).subarray(0, 5000);
    const error = await loadModel(bytes, { threads: 1 }).catch((e) => e);
    expect(error).toBeInstanceOf(WasmLMError);
    expect(error.code).toBe('TRUNCATED');
    expect(error.offset).toEqual(expect.any(Number));
  });
});

describeWithTestdata('a crashed worker', () => {
  const options = { temperature: 0, maxTokens: 12, ignoreEos: true };

  test('is replaced: the request in flight fails, the model loads again from its path, the next request works', async () => {
    const lm = await loadModel(testdataPath(STORIES_GGUF), { contextLength: 64, threads: 1 });
    try {
      const before = await lm.complete('Once upon a time', options);
      const inFlight = lm.complete('Once upon a time', { ...options, maxTokens: 40 });
      await expect(lm._request('_trap', {})).rejects.toMatchObject({ code: 'INTERNAL', message: expect.stringMatching(/wasm instance crashed/) });
      await inFlight.catch(() => {}); // finished first or failed with the crash: either is fine
      const after = await lm.complete('Once upon a time', options);
      expect(after.tokens).toEqual(before.tokens);
      expect(lm.restarts).toBe(1);
    } finally {
      await lm.dispose();
    }
  }, 30000);

  test('whose model came from handed-over bytes says to load it again', async () => {
    const lm = await loadModel(fs.readFileSync(testdataPath(STORIES_GGUF)), { contextLength: 64, threads: 1 });
    try {
      await expect(lm._request('_trap', {})).rejects.toMatchObject({ code: 'INTERNAL' });
      await expect(lm.complete('Once', options)).rejects.toMatchObject({
        name: 'WasmLMError', code: 'INTERNAL', message: expect.stringMatching(/call loadModel\(\) again/),
      });
      expect(lm.restarts).toBe(0);
    } finally {
      await lm.dispose();
    }
  }, 30000);
});

async function drainChat(iterator) {
  for (;;) {
    const { value, done } = await iterator.next();
    if (done) return value;
  }
}

describeWithTestdata('chat templates', () => {
  test('Phi-3\'s template (from its GGUF vocabulary) renders the Phi-3 chat format', async () => {
    const { metadata } = await inspect(testdataPath('tokenizers/llamacpp-vocab/ggml-vocab-phi-3.gguf'));
    const text = await renderChat(metadata['tokenizer.chat_template'], [
      { role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hello' },
    ], { bosToken: '<s>', eosToken: '<|endoftext|>' });
    expect(text).toContain('<|user|>\nHello<|end|>\n');
    expect(text.endsWith('<|assistant|>\n')).toBe(true);
  });

  test('chat() generates from the rendered template, with template options beside generate()\'s', async () => {
    // The template writes the messages' contents one after the other.
    const lm = await loadModel(testdataPath('hostile/stories260K-chat-template-ok.gguf'), { contextLength: 64, threads: 1 });
    try {
      const options = { temperature: 0, maxTokens: 6, ignoreEos: true };
      const chat = await drainChat(lm.chat([{ role: 'user', content: 'Once upon' }, { role: 'user', content: ' a time' }],
        { ...options, enableThinking: false, chatTemplateKwargs: { anything: 1 } }));
      await lm.reset();
      const plain = await lm.complete('Once upon a time', options);
      expect(chat.tokens).toEqual(plain.tokens);
    } finally {
      await lm.dispose();
    }
  }, 30000);
});
