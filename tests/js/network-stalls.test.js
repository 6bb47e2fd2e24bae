// Network sources under a bad server: a response that stalls fails with IO
// after `readTimeout` without bytes (and is resumed with a Range request
// while retries last); a body shorter or longer than its Content-Length is
// TRUNCATED / BAD_FORMAT, never a file of another size.
import fs from 'node:fs';
import http from 'node:http';
import { inspect, openModel, releaseWasmModules } from '../../web/src/index.js';
import { describeWithTestdata, STORIES_GGUF, testdataPath } from './helpers/testdata.js';

/** A server for `bytes` whose first `stalls` responses stop after `after` bytes and then send nothing. */
async function stallingServer(bytes, { stalls, after }) {
  const log = [];
  let served = 0;
  const hung = new Set();
  const server = http.createServer((req, res) => {
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    const start = range ? Number(range[1]) : 0;
    const end = range && range[2] ? Number(range[2]) : bytes.length - 1;
    log.push(req.headers.range ?? 'whole');
    const head = { 'Content-Length': end - start + 1, 'Accept-Ranges': 'bytes', ETag: '"v1"' };
    if (range) res.writeHead(206, { ...head, 'Content-Range': `bytes ${start}-${end}/${bytes.length}` });
    else res.writeHead(200, head);
    if (served++ < stalls) {
      res.write(bytes.subarray(start, Math.min(end + 1, start + after)));
      hung.add(res); // never ended: the client must give up on it
    } else {
      res.end(bytes.subarray(start, end + 1));
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/model.gguf`,
    log,
    close: () => {
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A fetch whose answers claim `claimed` bytes of Content-Length and carry `body`. */
function lyingFetch(body, claimed) {
  return async () => new Response(body, { status: 200, headers: { 'Content-Length': String(claimed) } });
}

describeWithTestdata('network sources', () => {
  let bytes;
  beforeAll(() => {
    bytes = fs.readFileSync(testdataPath(STORIES_GGUF));
  });
  afterAll(() => releaseWasmModules());

  test('a stalled download is resumed with a Range request after readTimeout, and loads', async () => {
    const server = await stallingServer(bytes, { stalls: 1, after: 200000 });
    try {
      const session = await openModel(server.url, { contextLength: 64, readTimeout: 300, retryDelay: 0 });
      expect((await session.complete('Once upon a time', { temperature: 0, maxTokens: 4 })).tokens).toHaveLength(4);
      session.dispose();
      expect(server.log).toEqual(['whole', 'bytes=200000-']);
    } finally {
      await server.close();
    }
  });

  test('a download that keeps stalling fails with IO saying so, once the retries are spent', async () => {
    const server = await stallingServer(bytes, { stalls: 100, after: 1000 });
    try {
      const t0 = performance.now();
      await expect(openModel(server.url, { contextLength: 64, readTimeout: 200, retries: 2, retryDelay: 0 }))
        .rejects.toMatchObject({ name: 'WasmLMError', code: 'IO', message: expect.stringMatching(/no bytes for 0.2 s/) });
      expect(performance.now() - t0).toBeLessThan(5000);
      expect(server.log).toHaveLength(3);
    } finally {
      await server.close();
    }
  });

  test('a stalled inspect() range read fails with IO', async () => {
    const server = await stallingServer(bytes, { stalls: 100, after: 10 });
    try {
      await expect(inspect(server.url, { readTimeout: 200 })).rejects.toMatchObject({ code: 'IO', message: expect.stringMatching(/no bytes/) });
    } finally {
      await server.close();
    }
  });

  test('a body shorter than its Content-Length is TRUNCATED; a longer one BAD_FORMAT', async () => {
    const short = lyingFetch(bytes.subarray(0, bytes.length - 1000), bytes.length);
    await expect(openModel('https://example.test/m.gguf', { fetch: short, retries: 1, retryDelay: 0 }))
      .rejects.toMatchObject({ code: 'TRUNCATED', offset: bytes.length - 1000 });
    const long = lyingFetch(Buffer.concat([bytes, Buffer.alloc(1000)]), bytes.length);
    await expect(openModel('https://example.test/m.gguf', { fetch: long }))
      .rejects.toMatchObject({ code: 'BAD_FORMAT', message: expect.stringMatching(/more than its Content-Length/) });
  });

  test('a range answer shorter than its Content-Range is TRUNCATED', async () => {
    const fetchShort = async (url, init) => {
      const [, start, end] = /bytes=(\d+)-(\d+)/.exec(new Headers(init.headers).get('Range'));
      const want = bytes.subarray(Number(start), Number(end) + 1);
      return new Response(want.subarray(0, want.length >> 1), {
        status: 206, headers: { 'Content-Range': `bytes ${start}-${Math.min(Number(end), bytes.length - 1)}/${bytes.length}` },
      });
    };
    await expect(inspect('https://example.test/m.gguf', { fetch: fetchShort })).rejects.toMatchObject({ code: 'TRUNCATED' });
  });
});
