// openModel() in headless Chromium: one streaming GET, progress events, the
// real Cache API (store while downloading, read next time, clearCache()),
// resume after a dropped connection, and abort.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, describeWithChromium } from './helpers/chromium.js';
import { startTestServer } from './helpers/serve.js';
import { STORIES_GGUF, testdataPath } from './helpers/testdata.js';

const TIMEOUT = 60_000;
const MODEL = `/testdata/${STORIES_GGUF}`;
const PROMPT = [1, 403, 407, 261, 378];

describeWithChromium('openModel in Chromium', () => {
  let server;
  let requests = [];
  let drop = null;
  let profile;
  let context;
  let page;

  beforeAll(async () => {
    server = await startTestServer({ onResponse: (e) => requests.push(e), dropAfter: (r) => drop?.(r) });
    profile = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmlm-load-chromium-'));
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${server.url}/web/dist/package.json`);
  }, TIMEOUT);
  afterAll(async () => {
    await context?.close();
    await server?.close();
    if (profile) fs.rmSync(profile, { recursive: true, force: true });
  });
  beforeEach(() => {
    requests = [];
    drop = null;
  });

  /** Loads the model in the page; returns {logits (first 8), events, error}. */
  const load = (options = {}) => page.evaluate(async ({ url, prompt, options: { abortAt, ...options } }) => {
    const { openModel } = await import('/web/src/index.js');
    const events = [];
    const controller = new AbortController();
    try {
      const model = await openModel(url, {
        contextLength: 64,
        ...options,
        signal: controller.signal,
        onProgress: (e) => {
          events.push(e);
          if (abortAt !== undefined && e.loaded >= abortAt) controller.abort();
        },
      });
      const logits = Array.from(model.eval(prompt).slice(0, 8));
      model.dispose();
      return { logits, events };
    } catch (error) {
      return { error: { name: error.name, code: error.code, message: error.message }, events };
    }
  }, { url: MODEL, prompt: PROMPT, options });

  test('one GET; progress ends at ready with loaded === total', async () => {
    const { logits, events, error } = await load();
    expect(error).toBeUndefined();
    expect(logits).toHaveLength(8);
    expect(requests.filter((r) => r.url === MODEL)).toEqual([expect.objectContaining({ range: undefined, status: 200 })]);
    const size = fs.statSync(testdataPath(STORIES_GGUF)).size;
    for (let i = 1; i < events.length; i++) expect(events[i].loaded).toBeGreaterThanOrEqual(events[i - 1].loaded);
    expect(events.at(-1)).toMatchObject({ phase: 'ready', loaded: size, source: 'network' });
  }, TIMEOUT);

  test('cache: true stores the file in the Cache API; the next load reads it; clearCache() removes it', async () => {
    const first = await load({ cache: true });
    expect(first.error).toBeUndefined();
    expect(first.events.at(-1).source).toBe('network');
    const stored = await page.evaluate(async (url) => {
      const cache = await caches.open('wasmlm-models-v1');
      const response = await cache.match(new URL(url, location.href).href);
      return response ? (await response.arrayBuffer()).byteLength : null;
    }, MODEL);
    expect(stored).toBe(first.events.at(-1).total);

    const second = await load({ cache: true });
    expect(second.logits).toEqual(first.logits);
    expect(second.events.at(-1)).toMatchObject({ source: 'cache', phase: 'ready' });

    const cleared = await page.evaluate(async () => (await import('/web/src/index.js')).clearCache());
    expect(cleared).toBe(true);
    const third = await load({ cache: true });
    expect(third.events.at(-1).source).toBe('network');
    await page.evaluate(async () => (await import('/web/src/index.js')).clearCache());
  }, TIMEOUT);

  test('a dropped connection is resumed with a Range request', async () => {
    const reference = (await load()).logits;
    requests = [];
    let dropped = 0;
    drop = ({ url, range }) => (url === MODEL && range === undefined && dropped++ === 0 ? 400000 : null);
    const { logits, error } = await load({ retryDelay: 0 });
    expect(error).toBeUndefined();
    expect(logits).toEqual(reference);
    // The resume starts where the page's reader stopped: at most the 400000
    // bytes sent (the browser may drop bytes it had buffered when the
    // connection broke).
    const ranges = requests.filter((r) => r.url === MODEL).map((r) => r.range);
    expect(ranges).toHaveLength(2);
    expect(ranges[0]).toBeUndefined();
    const start = Number(/^bytes=(\d+)-$/.exec(ranges[1])?.[1]);
    expect(start).toBeGreaterThan(0);
    expect(start).toBeLessThanOrEqual(400000);
  }, TIMEOUT);

  test('abort mid-load gives ABORTED; the memory check gives OUT_OF_MEMORY', async () => {
    const aborted = await load({ abortAt: 1 });
    expect(aborted.error).toMatchObject({ name: 'WasmLMError', code: 'ABORTED' });
    const tooBig = await load({ contextLength: 2 ** 24 });
    expect(tooBig.error).toMatchObject({ name: 'WasmLMError', code: 'OUT_OF_MEMORY' });
    expect((await load()).error).toBeUndefined();
  }, TIMEOUT);

  // The worker runs at /web/src/worker/: a relative URL still means the page's.
  test('loadModel() resolves relative URLs against the page (document.baseURI), as fetch() does', async () => {
    const result = await page.evaluate(async () => {
      const { loadModel } = await import('/web/src/index.js');
      const run = async (source) => {
        const lm = await loadModel(source, { contextLength: 16 });
        try {
          return (await lm.complete('Once upon a', { maxTokens: 4, temperature: 0 })).text;
        } finally {
          await lm.dispose();
        }
      };
      const here = await run('../../testdata/llama/stories260K/stories260K.gguf'); // page: /web/dist/package.json
      const base = document.createElement('base');
      base.href = '/testdata/llama/stories260K/reference/';
      document.head.append(base);
      try {
        return { here, withBase: await run('../stories260K.gguf'), shards: await run(['../stories260K.gguf']) };
      } finally {
        base.remove();
      }
    });
    expect(result).toEqual({ here: ' time, there was', withBase: ' time, there was', shards: ' time, there was' });
    const model = requests.filter((r) => r.url === MODEL);
    expect(model.length).toBe(3);
    expect(requests.filter((r) => r.url.startsWith('/web/src/') && r.url.endsWith('.gguf'))).toEqual([]);
  }, TIMEOUT);
});
