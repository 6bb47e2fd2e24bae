// openModel()'s loader: the same model from a path, one streaming GET, a Blob
// and bytes; progress events; abort frees the model; a dropped connection is
// resumed with one Range request; typed errors for bad files over HTTP; the
// memory check fails before the weights are downloaded; the Cache API path
// (with an in-memory CacheStorage, as Node has none).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clearCache, loadWasmModule, openModel, releaseWasmModules } from '../../web/src/index.js';
import { startServer } from '../../scripts/serve.js';
import { countingFetch } from './helpers/serve.js';
import { splitGguf } from './helpers/gguf-split.js';
import { describeWithTestdata, HAVE_TESTDATA, REPO_ROOT, STORIES_GGUF, TESTDATA, testdataPath } from './helpers/testdata.js';
import { ensureModel } from '../bench/llama/gen-model.js';

const PROMPT = [1, 403, 407, 261, 378]; // <s> Once upon a time
const STORIES_URL_PATH = `/testdata/${STORIES_GGUF}`;
const BIG_PATH = '/tests/bench/llama/models/llama-S-Q8_0.gguf';
const BIG = path.join(REPO_ROOT, BIG_PATH); // 143 MB, the LLaMA benchmark's S model, generated when missing
if (HAVE_TESTDATA) ensureModel('S', 'Q8_0', path.dirname(BIG), TESTDATA); // its vocabulary comes from the test data


async function logitsOf(input, options = {}) {
  const model = await openModel(input, { contextLength: 64, ...options });
  try {
    return model.eval(PROMPT);
  } finally {
    model.dispose();
  }
}

describeWithTestdata('openModel loading', () => {
  const file = testdataPath(STORIES_GGUF);
  const size = fs.statSync(file).size;
  let server; // the repository (the big model) and /testdata/
  let files; // the bad files
  let requests = [];
  let drop = null; // (request) => bytes after which the server drops the connection
  let reference;
  let tmp;

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmlm-load-'));
    const bytes = fs.readFileSync(file);
    fs.writeFileSync(path.join(tmp, 'truncated.gguf'), bytes.subarray(0, Math.floor(size * 0.6)));
    const corrupt = Buffer.from(bytes);
    corrupt.write('GGUX', 0, 'latin1');
    fs.writeFileSync(path.join(tmp, 'corrupt.gguf'), corrupt);
    const header = Buffer.from(bytes.subarray(0, 4096));
    fs.writeFileSync(path.join(tmp, 'header-only.gguf'), header);
    fs.copyFileSync(file, path.join(tmp, 'stories.gguf'));
    const hooks = { onResponse: (entry) => requests.push(entry), dropAfter: (request) => drop?.(request) };
    server = await startServer({ port: 0, root: REPO_ROOT, testdata: TESTDATA, ...hooks });
    files = await startServer({ port: 0, root: tmp, testdata: null, ...hooks });
    reference = await logitsOf(file);
  });
  beforeEach(() => {
    requests = [];
    drop = null;
  });
  afterAll(async () => {
    await server?.close();
    await files?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
    await releaseWasmModules();
  });

  test('a path, a URL (one GET), a Blob and bytes give the same logits', async () => {
    expect(reference.length).toBeGreaterThan(0);
    const fromUrl = await logitsOf(`${server.url}${STORIES_URL_PATH}`);
    expect(requests).toEqual([expect.objectContaining({ method: 'GET', url: STORIES_URL_PATH, range: undefined, status: 200 })]);
    const bytes = fs.readFileSync(file);
    expect(fromUrl).toEqual(reference);
    expect(await logitsOf(new Blob([bytes]))).toEqual(reference);
    expect(await logitsOf(new Uint8Array(bytes))).toEqual(reference);
    expect(await logitsOf(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length))).toEqual(reference);
    expect(await logitsOf(new URL(`file://${file}`))).toEqual(reference);
  });

  test('progress events are monotonic and end with loaded === total, phases download -> build -> ready', async () => {
    for (const input of [file, `${server.url}${STORIES_URL_PATH}`, new Blob([fs.readFileSync(file)])]) {
      const events = [];
      await logitsOf(input, { onProgress: (e) => events.push(e) });
      expect(events.length).toBeGreaterThanOrEqual(3);
      for (let i = 1; i < events.length; i++) expect(events[i].loaded).toBeGreaterThanOrEqual(events[i - 1].loaded);
      for (const e of events) {
        expect(e.total).toBe(size);
        expect(e.bytesPerSecond).toBeGreaterThanOrEqual(0);
      }
      const phases = [...new Set(events.map((e) => e.phase))];
      expect(phases).toEqual(['download', 'build', 'ready']);
      expect(events.at(-1)).toMatchObject({ loaded: size, total: size, phase: 'ready' });
      expect(events.at(-1).source).toBe(typeof input === 'string' && input.startsWith('http') ? 'network' : 'file');
    }
  });

  test('progress is throttled to about 10 events a second', async () => {
    if (!fs.existsSync(BIG)) return;
    const events = [];
    const t0 = performance.now();
    const model = await openModel(`${server.url}${BIG_PATH}`, { contextLength: 64, onProgress: (e) => events.push(e) });
    const seconds = (performance.now() - t0) / 1000;
    model.dispose();
    expect(events.length).toBeLessThanOrEqual(Math.ceil(seconds * 10) + 4);
    expect(events.at(-1)).toMatchObject({ loaded: fs.statSync(BIG).size, phase: 'ready' });
  }, 60000);

  test('an abort mid-load rejects with ABORTED (also while a read is pending) and the next load works', async () => {
    const controller = new AbortController();
    // A body that delivers half the file, then stalls.
    const stalling = async (url, init) => {
      const response = await fetch(url, init);
      const reader = response.body.getReader();
      let sent = 0;
      const body = new ReadableStream({
        async pull(c) {
          if (sent > size / 2) {
            setTimeout(() => controller.abort(), 20);
            return new Promise(() => {}); // never
          }
          const { done, value } = await reader.read();
          if (done) c.close();
          else {
            sent += value.length;
            c.enqueue(value);
          }
        },
        cancel: (reason) => reader.cancel(reason),
      });
      return new Response(body, { status: response.status, headers: response.headers });
    };
    const started = performance.now();
    await expect(openModel(`${server.url}${STORIES_URL_PATH}`, { fetch: stalling, signal: controller.signal }))
      .rejects.toMatchObject({ name: 'WasmLMError', code: 'ABORTED' });
    expect(performance.now() - started).toBeLessThan(5000);

    const early = new AbortController();
    early.abort();
    await expect(openModel(file, { signal: early.signal })).rejects.toMatchObject({ code: 'ABORTED' });
    expect(await logitsOf(`${server.url}${STORIES_URL_PATH}`)).toEqual(reference);
  });

  test('aborted loads free their memory: the heap does not grow over repeated aborts', async () => {
    const big = fs.statSync(BIG).size;
    (await openModel(BIG, { contextLength: 64 })).dispose();
    const wasm = await loadWasmModule();
    const heap = wasm.HEAPU8.buffer.byteLength;
    for (let i = 0; i < 3; i++) {
      const controller = new AbortController();
      const onProgress = (e) => {
        if (e.loaded > big * 0.6) controller.abort();
      };
      const input = i === 1 ? BIG : `${server.url}${BIG_PATH}`;
      await expect(openModel(input, { contextLength: 64, signal: controller.signal, onProgress }))
        .rejects.toMatchObject({ code: 'ABORTED' });
    }
    (await openModel(`${server.url}${BIG_PATH}`, { contextLength: 64 })).dispose();
    expect(wasm.HEAPU8.buffer.byteLength).toBeLessThanOrEqual(heap + 16 * 1024 * 1024);
  }, 120000);

  test('a dropped connection is resumed with one Range request', async () => {
    let dropped = 0;
    drop = ({ range }) => (range === undefined && dropped++ === 0 ? 300000 : null);
    const events = [];
    expect(await logitsOf(`${server.url}${STORIES_URL_PATH}`, { onProgress: (e) => events.push(e) })).toEqual(reference);
    expect(requests).toEqual([
      expect.objectContaining({ range: undefined, status: 200, dropped: true }),
      expect.objectContaining({ range: 'bytes=300000-', status: 206 }),
    ]);
    expect(events.at(-1)).toMatchObject({ loaded: size, total: size });
  });

  test('a connection that keeps dropping fails with IO after `retries` resumes', async () => {
    drop = () => 100000;
    await expect(openModel(`${server.url}${STORIES_URL_PATH}`, { retries: 2, retryDelay: 0 }))
      .rejects.toMatchObject({ name: 'WasmLMError', code: 'IO', message: expect.stringMatching(/gave up after 2/) });
    await new Promise((resolve) => setTimeout(resolve, 100)); // the server logs a dropped response when its socket closes
    expect(requests.map((r) => r.range)).toEqual([undefined, 'bytes=100000-', 'bytes=200000-']);
  });

  test('truncated, corrupt and missing files over HTTP are typed errors', async () => {
    await expect(openModel(`${files.url}/truncated.gguf`)).rejects.toMatchObject({ name: 'WasmLMError', code: 'TRUNCATED' });
    await expect(openModel(`${files.url}/header-only.gguf`)).rejects.toMatchObject({ name: 'WasmLMError', code: 'TRUNCATED' });
    await expect(openModel(`${files.url}/corrupt.gguf`)).rejects.toMatchObject({ name: 'WasmLMError', code: 'BAD_FORMAT' });
    await expect(openModel(`${files.url}/missing.gguf`)).rejects.toMatchObject({ name: 'WasmLMError', code: 'IO' });
    await expect(openModel('http://127.0.0.1:1/none.gguf', { retries: 0 })).rejects.toMatchObject({ code: 'IO' });
    expect(await logitsOf(`${files.url}/stories.gguf`)).toEqual(reference);
  });

  test('the memory check fails before the weights are downloaded, saying how much is needed', async () => {
    const target = fs.existsSync(BIG) ? BIG_PATH : STORIES_URL_PATH;
    const total = fs.existsSync(BIG) ? fs.statSync(BIG).size : size;
    const events = [];
    const counting = countingFetch();
    const started = performance.now();
    const error = await openModel(`${server.url}${target}`, {
      contextLength: 2 ** 24, onProgress: (e) => events.push(e), fetch: counting.fetch,
    }).catch((e) => e);
    expect(error).toMatchObject({ name: 'WasmLMError', code: 'OUT_OF_MEMORY' });
    expect(error.message).toMatch(/needs \d+\.\d+ GiB of wasm memory .*KV cache/);
    expect(error.bytesNeeded).toBeGreaterThan(4 * 2 ** 30);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(counting.requests.length).toBe(1);
    if (fs.existsSync(BIG)) {
      expect(Math.max(0, ...events.map((e) => e.loaded))).toBeLessThan(total / 4);
      expect(counting.totalBytes()).toBeLessThan(total / 4); // the body was cancelled
    }
    // Memory is fine afterwards, and memoryCheck: false skips the check (then build fails instead).
    expect(await logitsOf(file)).toEqual(reference);
    await expect(openModel(file, { contextLength: 2 ** 24, memoryCheck: false })).rejects.toMatchObject({ name: 'WasmLMError' });
  }, 30000);

  test('a split GGUF loads from its shards (paths in any order, URLs, Files) and gives the same logits', async () => {
    const shards = splitGguf(fs.readFileSync(file), [20, 28]); // stories260K has 48 tensors
    const names = shards.map((_, k) => `stories-0000${k + 1}-of-00002.gguf`);
    shards.forEach((b, k) => fs.writeFileSync(path.join(tmp, names[k]), b));
    const paths = names.map((n) => path.join(tmp, n));
    const events = [];
    expect(await logitsOf([paths[1], paths[0]], { onProgress: (e) => events.push(e) })).toEqual(reference);
    expect(events.at(-1)).toMatchObject({ phase: 'ready', loaded: shards[0].length + shards[1].length, total: shards[0].length + shards[1].length });
    expect(await logitsOf(names.map((n) => `${files.url}/${n}`))).toEqual(reference);
    expect(await logitsOf(shards.map((b, k) => new File([b], names[k])))).toEqual(reference);
    // One shard alone, or a shard missing or repeated: typed errors.
    await expect(openModel(paths[0])).rejects.toMatchObject({ code: 'BAD_FORMAT', message: expect.stringMatching(/shard 1 of a split GGUF of 2 shards: pass all 2/) });
    await expect(openModel(splitShardHeader())).rejects.toMatchObject({ code: 'BAD_FORMAT', message: expect.stringMatching(/shard 1 of/) });
    await expect(openModel([paths[0], paths[0]])).rejects.toMatchObject({ name: 'WasmLMError', code: 'BAD_FORMAT' });
    await expect(openModel([paths[0], file])).rejects.toMatchObject({ name: 'WasmLMError', code: 'BAD_FORMAT' });
  });

  describe('with the Cache API', () => {
    let store;
    beforeAll(() => {
      store = installMemoryCaches();
    });
    afterAll(() => {
      delete globalThis.caches;
    });

    test('cache: true stores the download as it streams; the next load reads the cache; clearCache() empties it', async () => {
      const url = `${server.url}${STORIES_URL_PATH}`;
      const first = [];
      expect(await logitsOf(url, { cache: true, onProgress: (e) => first.push(e) })).toEqual(reference);
      expect(first.at(-1).source).toBe('network');
      expect(store.entries.get(url)?.length).toBe(size);

      const second = [];
      expect(await logitsOf(url, { cache: true, onProgress: (e) => second.push(e) })).toEqual(reference);
      expect(second.at(-1)).toMatchObject({ source: 'cache', loaded: size });
      // The second load asked the server whether the file changed, and read no body.
      expect(requests.filter((r) => r.status === 200 && r.url === STORIES_URL_PATH).length).toBeLessThanOrEqual(1);

      // A stored copy of another size is stale: the network is used and the entry replaced.
      store.entries.set(url, store.entries.get(url).subarray(0, 1000), { 'Content-Length': '1000' });
      const third = [];
      expect(await logitsOf(url, { cache: true, onProgress: (e) => third.push(e) })).toEqual(reference);
      expect(third.at(-1).source).toBe('network');
      expect(store.entries.get(url).length).toBe(size);

      // A damaged stored copy (shorter than it says): dropped, and the rest comes with a Range request.
      store.entries.set(url, store.entries.get(url).subarray(0, 5000));
      requests = [];
      const fourth = [];
      expect(await logitsOf(url, { cache: true, onProgress: (e) => fourth.push(e) })).toEqual(reference);
      expect(fourth.at(-1)).toMatchObject({ source: 'network', loaded: size });
      expect(requests.map((r) => r.range)).toContain('bytes=5000-');
      expect(store.entries.has(url)).toBe(false);

      expect(await clearCache()).toBe(true);
      expect(store.entries.size).toBe(0);
    });

    test('a download that fails leaves nothing in the cache', async () => {
      drop = () => 100000;
      await expect(openModel(`${files.url}/stories.gguf`, { cache: true, retries: 0 })).rejects.toMatchObject({ code: 'IO' });
      expect(store.entries.has(`${files.url}/stories.gguf`)).toBe(false);
    });
  });

  test('without a Cache API, cache: true is ignored and clearCache() resolves false', async () => {
    expect(globalThis.caches).toBeUndefined();
    expect(await logitsOf(`${server.url}${STORIES_URL_PATH}`, { cache: true })).toEqual(reference);
    expect(await clearCache()).toBe(false);
  });
});

/** A GGUF v3 header with no tensors and split.no = 0, split.count = 2 (the first shard of two). */
function splitShardHeader() {
  const parts = [];
  const u32 = (v) => { const b = Buffer.alloc(4); b.writeUInt32LE(v); parts.push(b); };
  const u64 = (v) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); parts.push(b); };
  const str = (s) => { u64(Buffer.byteLength(s)); parts.push(Buffer.from(s)); };
  const u16kv = (key, v) => { str(key); u32(2); const b = Buffer.alloc(2); b.writeUInt16LE(v); parts.push(b); };
  parts.push(Buffer.from('GGUF'));
  u32(3);
  u64(0); // tensors
  u64(3); // metadata entries
  str('general.architecture'); u32(8); str('llama');
  u16kv('split.no', 0);
  u16kv('split.count', 2);
  return new Uint8Array(Buffer.concat(parts));
}

/** A minimal in-memory CacheStorage (one cache), reading put() bodies as streams. */
function installMemoryCaches() {
  const entries = new Map(); // url -> {bytes, headers}
  const meta = new Map();
  const cache = {
    async match(url) {
      const bytes = entries.get(String(url));
      if (!bytes) return undefined;
      const headers = new Headers(meta.get(String(url)));
      let at = 0;
      return new Response(new ReadableStream({
        pull(c) {
          if (at >= bytes.length) return c.close();
          c.enqueue(bytes.slice(at, at + 65536));
          at += 65536;
        },
      }), { status: 200, headers });
    },
    async put(url, response) {
      const parts = [];
      const reader = response.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parts.push(value);
      }
      entries.set(String(url), new Uint8Array(Buffer.concat(parts)));
      meta.set(String(url), [...response.headers]);
    },
    async delete(url) {
      meta.delete(String(url));
      return entries.delete(String(url));
    },
  };
  globalThis.caches = {
    open: async () => cache,
    async delete() { // true: the cache existed
      entries.clear();
      meta.clear();
      return true;
    },
  };
  return {
    entries: {
      get: (k) => entries.get(k),
      has: (k) => entries.has(k),
      set: (k, v, headers = {}) => {
        entries.set(k, v);
        const h = new Headers(meta.get(k));
        for (const [name, value] of Object.entries(headers)) h.set(name, value);
        meta.set(k, [...h]);
      },
      get size() {
        return entries.size;
      },
    },
  };
}
