// inspect() gives the same result whichever way the bytes arrive, and reads
// only the header where the source allows random access.
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { inspect } from '../../web/src/index.js';
import { countingFetch, startTestServer } from './helpers/serve.js';
import { describeWithTestdata, RWKV_5V2_FP32, STORIES_GGUF, TINYLLAMA_GGJT, testdataPath } from './helpers/testdata.js';

describeWithTestdata('inspect() over every kind of source', () => {
  let rangeServer;
  let plainServer; // ignores Range: answers 200 with the whole file
  beforeAll(async () => {
    rangeServer = await startTestServer();
    plainServer = await startTestServer({ range: false });
  });
  afterAll(async () => {
    await rangeServer?.close();
    await plainServer?.close();
  });

  describe.each([STORIES_GGUF, RWKV_5V2_FP32, TINYLLAMA_GGJT])('%s', (file) => {
    const path = testdataPath(file);
    const bytes = new Uint8Array(fs.readFileSync(path));
    let expected;
    beforeAll(async () => {
      expected = await inspect(path);
    });

    test('a Node path and a file: URL', async () => {
      expect(expected.tensors.length).toBeGreaterThan(0);
      expect(await inspect(pathToFileURL(path))).toEqual(expected);
      expect(await inspect(pathToFileURL(path).href)).toEqual(expected);
    });

    test('a Uint8Array, a Node Buffer and an ArrayBuffer', async () => {
      expect(await inspect(bytes)).toEqual(expected);
      expect(await inspect(fs.readFileSync(path))).toEqual(expected);
      expect(await inspect(bytes.slice().buffer)).toEqual(expected);
    });

    test('a Blob', async () => {
      expect(await inspect(new Blob([bytes]))).toEqual(expected);
    });

    test('a URL on a server with Range support', async () => {
      const counter = countingFetch();
      const result = await inspect(`${rangeServer.url}/testdata/${file}`, { fetch: counter.fetch });
      expect(result).toEqual(expected);
      expect(counter.requests.every((r) => r.status === 206 && r.range)).toBe(true);
    });

    test('a URL on a server that ignores Range (streams the body)', async () => {
      const counter = countingFetch();
      const result = await inspect(`${plainServer.url}/testdata/${file}`, { fetch: counter.fetch });
      expect(result).toEqual(expected);
      expect(counter.requests).toHaveLength(1);
      expect(counter.requests[0].status).toBe(200);
    });

    test('a Response, a ReadableStream and a Node stream', async () => {
      const headers = { 'Content-Length': String(bytes.length) };
      expect(await inspect(new Response(bytes, { headers }))).toEqual(expected);
      // A bare stream has no declared size: a GGUF stream is left after its
      // header, so its size stays unknown; record formats are read to the end.
      const fromStream = await inspect(new Blob([bytes]).stream());
      expect(fromStream.fileSize).toBe(expected.format === 'gguf' ? null : bytes.length);
      expect({ ...fromStream, fileSize: expected.fileSize }).toEqual(expected);
      const fromNodeStream = await inspect(fs.createReadStream(path));
      expect({ ...fromNodeStream, fileSize: expected.fileSize }).toEqual(expected);
    });
  });

  test('with Range, a GGUF costs one 64 KiB request, not the file', async () => {
    const counter = countingFetch();
    await inspect(`${rangeServer.url}/testdata/${STORIES_GGUF}`, { fetch: counter.fetch });
    expect(counter.requests).toHaveLength(1);
    expect(counter.totalBytes()).toBe(64 * 1024);
  });

  test('without Range, a GGUF body is cancelled once the header is parsed', async () => {
    const counter = countingFetch();
    await inspect(`${plainServer.url}/testdata/${STORIES_GGUF}`, { fetch: counter.fetch });
    expect(counter.totalBytes()).toBeLessThan(fs.statSync(testdataPath(STORIES_GGUF)).size / 2);
  });

  test('with Range, a record-format file skips large tensors', async () => {
    const counter = countingFetch();
    await inspect(`${rangeServer.url}/testdata/${TINYLLAMA_GGJT}`, { fetch: counter.fetch });
    // its two 1.1 MB embedding/output tensors are never downloaded
    expect(counter.totalBytes()).toBeLessThan(fs.statSync(testdataPath(TINYLLAMA_GGJT)).size / 2);
  });

  test('with Range, small tensors are read through in growing requests, not one request each', async () => {
    const counter = countingFetch();
    const result = await inspect(`${rangeServer.url}/testdata/${RWKV_5V2_FP32}`, { fetch: counter.fetch });
    expect(result.tensors).toHaveLength(270);
    expect(counter.requests.length).toBeLessThan(20);
  });
});
