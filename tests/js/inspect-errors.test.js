// Bad input rejects with a WasmLMError that says what and where.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inspect, WasmLMError } from '../../web/src/index.js';
import { startTestServer } from './helpers/serve.js';
import { describeWithTestdata, RWKV_5V2_FP32, STORIES_GGUF, testdataPath } from './helpers/testdata.js';

async function rejection(promise) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

function expectFileError(error, code) {
  expect(error).toBeInstanceOf(WasmLMError);
  expect(error.name).toBe('WasmLMError');
  expect(error.code).toBe(code);
  expect(typeof error.offset).toBe('number');
  expect(error.message).toMatch(new RegExp(`^at byte ${error.offset}: `));
}

describe('inspect() errors without test data', () => {
  test('an empty file is TRUNCATED at byte 0', async () => {
    const error = await rejection(inspect(new Uint8Array(0)));
    expectFileError(error, 'TRUNCATED');
    expect(error.offset).toBe(0);
  });

  test('bytes that are no model file are BAD_FORMAT at byte 0', async () => {
    const error = await rejection(inspect(new TextEncoder().encode('hello, this is not a model file')));
    expectFileError(error, 'BAD_FORMAT');
    expect(error.offset).toBe(0);
    expect(error.detail).toMatch(/GGUF/);
  });

  test('a missing path is an IO error without an offset', async () => {
    const error = await rejection(inspect(path.join(os.tmpdir(), 'wasmlm-no-such-file.gguf')));
    expect(error).toBeInstanceOf(WasmLMError);
    expect(error.code).toBe('IO');
    expect(error.offset).toBeNull();
  });

  test('an already aborted signal rejects with ABORTED', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await rejection(inspect(new Uint8Array(16), { signal: controller.signal }));
    expect(error).toBeInstanceOf(WasmLMError);
    expect(error.code).toBe('ABORTED');
  });

  test('an unusable input is BAD_OPTION', async () => {
    await expect(inspect(42)).rejects.toMatchObject({ name: 'WasmLMError', code: 'BAD_OPTION', message: expect.stringMatching(/the source must be/) });
  });
});

describeWithTestdata('inspect() errors on damaged test files', () => {
  const gguf = fs.readFileSync(testdataPath(STORIES_GGUF));
  const rwkv = fs.readFileSync(testdataPath(RWKV_5V2_FP32));
  let dir;
  let server;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmlm-errors-'));
    fs.writeFileSync(path.join(dir, 'cut-header.gguf'), gguf.subarray(0, 5000));
    fs.writeFileSync(path.join(dir, 'cut-data.gguf'), gguf.subarray(0, 100000));
    fs.writeFileSync(path.join(dir, 'cut.bin'), rwkv.subarray(0, 100000));
    server = await startTestServer({ root: dir, testdata: null });
  });
  afterAll(async () => {
    await server?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('a GGUF cut inside its header is TRUNCATED there (bytes, path, URL)', async () => {
    for (const source of [gguf.subarray(0, 5000), path.join(dir, 'cut-header.gguf'), `${server.url}/cut-header.gguf`]) {
      const error = await rejection(inspect(source));
      expectFileError(error, 'TRUNCATED');
      expect(error.offset).toBeLessThanOrEqual(5000);
    }
  });

  test('a GGUF cut inside its tensor data is TRUNCATED at the end of the file', async () => {
    const error = await rejection(inspect(path.join(dir, 'cut-data.gguf')));
    expectFileError(error, 'TRUNCATED');
    expect(error.offset).toBe(100000);
  });

  test('an rwkv.cpp file cut inside a tensor is TRUNCATED (Blob, URL)', async () => {
    for (const source of [new Blob([rwkv.subarray(0, 100000)]), `${server.url}/cut.bin`]) {
      const error = await rejection(inspect(source));
      expectFileError(error, 'TRUNCATED');
      expect(error.detail).toMatch(/tensor/);
    }
  });

  test('an rwkv.cpp stream that ends inside a tensor is TRUNCATED', async () => {
    const error = await rejection(inspect(new Blob([rwkv.subarray(0, 100000)]).stream()));
    expectFileError(error, 'TRUNCATED');
  });

  test('absurd counts in a GGUF header are TOO_LARGE at their offset', async () => {
    const bytes = new Uint8Array(gguf.subarray(0, 70000));
    new DataView(bytes.buffer).setBigUint64(8, 1n << 40n, true); // tensor count
    const error = await rejection(inspect(bytes));
    expectFileError(error, 'TOO_LARGE');
    expect(error.offset).toBe(8); // the byte where the tensor count is stored
  });

  test('an unknown GGUF version is UNSUPPORTED at byte 4', async () => {
    const bytes = new Uint8Array(gguf);
    new DataView(bytes.buffer).setUint32(4, 99, true);
    const error = await rejection(inspect(bytes));
    expectFileError(error, 'UNSUPPORTED');
    expect(error.offset).toBe(4);
  });

  test('a missing URL is an IO error', async () => {
    const error = await rejection(inspect(`${server.url}/missing.gguf`));
    expect(error).toBeInstanceOf(WasmLMError);
    expect(error.code).toBe('IO');
    expect(error.message).toMatch(/404/);
  });

  test('aborting while a URL is read rejects with ABORTED', async () => {
    const controller = new AbortController();
    const slowFetch = (url, init) => {
      controller.abort();
      return fetch(url, init);
    };
    const error = await rejection(inspect(`${server.url}/cut-data.gguf`, { signal: controller.signal, fetch: slowFetch }));
    expect(error).toBeInstanceOf(WasmLMError);
    expect(error.code).toBe('ABORTED');
  });
});
