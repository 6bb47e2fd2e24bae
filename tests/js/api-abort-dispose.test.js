// The API contract under abuse: an aborted signal always makes the call
// reject with ABORTED (before, during, or inside the first progress callback
// of a load), and dispose() settles every pending call with DISPOSED, even
// while the worker is stuck in a long synchronous step.
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { loadModel, openModel, releaseWasmModules } from '../../web/src/index.js';
import { describeWithTestdata, REPO_ROOT, STORIES_GGUF, testdataPath } from './helpers/testdata.js';
import { startTestServer } from './helpers/serve.js';

const LOOP_TEMPLATE = 'hostile/stories260K-chat-template-loop.gguf';
const RWKV_6V0_FP16 = 'rwkv/tiny-rwkv-6v0-1m-FP16.bin';
const PROMPT = 'Once upon a time';
const GREEDY = { temperature: 0, maxTokens: 200, ignoreEos: true };

const aborted = () => {
  const c = new AbortController();
  c.abort();
  return c.signal;
};

/** Options whose first onProgress call aborts the load. */
function abortOnFirstProgress() {
  const controller = new AbortController();
  let calls = 0;
  return {
    calls: () => calls,
    options: { signal: controller.signal, onProgress: () => { if (calls++ === 0) controller.abort(); } },
  };
}

const within = (ms, promise) => Promise.race([
  promise, new Promise((_, reject) => setTimeout(() => reject(new Error(`did not settle within ${ms} ms`)), ms)),
]);

describeWithTestdata('aborts always win', () => {
  let bytes;
  let server;
  beforeAll(async () => {
    bytes = fs.readFileSync(testdataPath(STORIES_GGUF));
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
    releaseWasmModules();
  });

  const sources = {
    ArrayBuffer: () => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length),
    Uint8Array: () => new Uint8Array(bytes),
    File: () => new File([bytes], 'stories260K.gguf'),
    URL: () => `${server.url}/testdata/${STORIES_GGUF}`,
    path: () => testdataPath(STORIES_GGUF),
  };

  test.each(Object.keys(sources))('loadModel of a%s aborted inside its first onProgress rejects with ABORTED', async (kind) => {
    const probe = abortOnFirstProgress();
    await expect(loadModel(sources[kind](), { threads: 1, contextLength: 64, ...probe.options }))
      .rejects.toMatchObject({ name: 'WasmLMError', code: 'ABORTED' });
    expect(probe.calls()).toBeGreaterThan(0);
  });

  test.each(Object.keys(sources))('openModel of a%s aborted inside its first onProgress rejects with ABORTED', async (kind) => {
    const probe = abortOnFirstProgress();
    await expect(openModel(sources[kind](), { contextLength: 64, ...probe.options }))
      .rejects.toMatchObject({ name: 'WasmLMError', code: 'ABORTED' });
    expect(probe.calls()).toBeGreaterThan(0);
  });

  test('loadModel and openModel with an already aborted signal reject with ABORTED', async () => {
    await expect(loadModel(sources.path(), { signal: aborted() })).rejects.toMatchObject({ code: 'ABORTED' });
    await expect(openModel(sources.path(), { signal: aborted() })).rejects.toMatchObject({ code: 'ABORTED' });
  });

  describe('on a loaded model', () => {
    let lm;
    let session;
    beforeAll(async () => {
      lm = await loadModel(sources.path(), { threads: 1, contextLength: 256 });
      session = await openModel(sources.path(), { contextLength: 256 });
    });
    afterAll(async () => {
      await lm?.dispose();
      session?.dispose();
    });

    test('generate, complete and chat with an already aborted signal reject with ABORTED', async () => {
      await expect(lm.complete(PROMPT, { ...GREEDY, signal: aborted() })).rejects.toMatchObject({ code: 'ABORTED' });
      await expect(lm.generate(PROMPT, { ...GREEDY, signal: aborted() }).next()).rejects.toMatchObject({ code: 'ABORTED' });
      await expect(lm.chat([{ role: 'user', content: 'hi' }], { signal: aborted() }).next())
        .rejects.toMatchObject({ code: 'ABORTED' });
      await expect(session.complete(PROMPT, { ...GREEDY, signal: aborted() })).rejects.toMatchObject({ code: 'ABORTED' });
    });

    test('an abort during complete() rejects it with ABORTED, at once', async () => {
      // An RWKV model has no context limit, so 100000 tokens take seconds and
      // the abort lands mid-generation however fast decoding gets (stories260K
      // fills its context in under 50 ms).
      const rwkv = await loadModel(testdataPath(RWKV_6V0_FP16), { threads: 1 });
      try {
        const controller = new AbortController();
        const pending = rwkv.complete(PROMPT, { ...GREEDY, maxTokens: 100000, signal: controller.signal });
        setTimeout(() => controller.abort(), 50);
        await expect(within(1000, pending)).rejects.toMatchObject({ code: 'ABORTED' });
        // The worker stopped that generation and answers the next call.
        expect((await rwkv.complete(PROMPT, { temperature: 0, maxTokens: 3 })).tokens).toHaveLength(3);
      } finally {
        await rwkv.dispose();
      }
    });

    test('an abort that lands with the last token still wins (openModel session)', async () => {
      const controller = new AbortController();
      const it = session.generate(PROMPT, { temperature: 0, maxTokens: 2, ignoreEos: true, signal: controller.signal });
      await it.next(); // the first piece
      controller.abort();
      await expect((async () => { for (;;) if ((await it.next()).done) return; })()).rejects.toMatchObject({ code: 'ABORTED' });
    });
  });
});

describeWithTestdata('dispose() settles everything', () => {
  afterAll(() => releaseWasmModules());

  test('pending calls reject with DISPOSED, later calls at once, a second dispose() resolves', async () => {
    // RWKV: no context limit, so the first call is still generating when dispose() comes.
    const lm = await loadModel(testdataPath(RWKV_6V0_FP16), { threads: 1 });
    const settled = (p) => p.then(() => 'resolved', (error) => error);
    const pending = [lm.complete(PROMPT, { ...GREEDY, maxTokens: 100000 }), lm.complete(PROMPT, GREEDY), lm.tokenize(PROMPT)].map(settled);
    await new Promise((resolve) => setTimeout(resolve, 30));
    await within(3000, lm.dispose());
    for (const outcome of await Promise.all(pending)) expect(outcome).toMatchObject({ name: 'WasmLMError', code: 'DISPOSED' });
    await expect(lm.complete(PROMPT)).rejects.toMatchObject({ code: 'DISPOSED' });
    await expect(lm.generate(PROMPT).next()).rejects.toMatchObject({ code: 'DISPOSED' });
    await expect(lm.saveState()).rejects.toMatchObject({ code: 'DISPOSED' });
    await expect(lm.dispose()).resolves.toBeUndefined();
  });

  test('dispose() ends a worker stuck rendering a looping chat template', async () => {
    const lm = await loadModel(testdataPath(LOOP_TEMPLATE), { threads: 1, contextLength: 256 });
    const chat = lm.chat([{ role: 'user', content: 'hi' }]).next().then(() => 'resolved', (error) => error);
    await new Promise((resolve) => setTimeout(resolve, 100)); // the worker is inside the template now
    const t0 = performance.now();
    await within(3000, lm.dispose());
    expect(performance.now() - t0).toBeLessThan(3000);
    expect(await chat).toMatchObject({ code: 'DISPOSED' });
  });

  test('an openModel session after dispose() throws DISPOSED', async () => {
    const session = await openModel(testdataPath(STORIES_GGUF), { contextLength: 64 });
    session.dispose();
    session.dispose();
    expect(() => session.eval([1])).toThrow(expect.objectContaining({ code: 'DISPOSED' }));
    await expect(session.complete(PROMPT)).rejects.toMatchObject({ code: 'DISPOSED' });
  });

  test('Node exits by itself after dispose() of a multi-threaded openModel', () => {
    const script = `
      import { openModel } from ${JSON.stringify(`${REPO_ROOT}/web/src/index.js`)};
      const session = await openModel(${JSON.stringify(testdataPath(STORIES_GGUF))}, { threads: 2, contextLength: 64 });
      const out = await session.complete('Once', { temperature: 0, maxTokens: 4 });
      session.dispose();
      console.log(session.threads, out.tokens.length);`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { timeout: 20000, encoding: 'utf8' });
    expect(run.error).toBeUndefined(); // a timeout (the pthreads keeping Node alive) sets error
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toBe('2 4');
  });
});
