// Loading the wasm builds in Node: single-threaded and pthreads.
import { chooseVariant, inspect, loadWasmModule, releaseWasmModules } from '../../web/src/index.js';

afterAll(() => releaseWasmModules());

describe('loadWasmModule in Node', () => {
  test('loads the single-threaded build once and caches it', async () => {
    const first = await loadWasmModule();
    expect(await loadWasmModule({ threads: 1 })).toBe(first);
    expect(first.threadedBuild()).toBe(false);
    expect(first.threadSelfTest(2)).toBe(1);
  });

  test('the type table lists ggml types with their block sizes', async () => {
    const table = (await loadWasmModule()).typeTable();
    expect(table.find((t) => t.name === 'F32')).toMatchObject({ id: 0, blockSize: 1, typeSize: 4, quantized: false });
    expect(table.find((t) => t.name === 'Q4_0')).toMatchObject({ id: 2, blockSize: 32, typeSize: 18, quantized: true });
  });

  test('threads > 1 loads the pthreads build, whose threads run', async () => {
    expect(chooseVariant(2)).toBe('mt');
    const mt = await loadWasmModule({ threads: 2 });
    expect(mt).not.toBe(await loadWasmModule());
    expect(mt.threadedBuild()).toBe(true);
    expect(mt.threadSelfTest(2)).toBe(2);
  });

  test('the pthreads build parses too', async () => {
    const mt = await loadWasmModule({ threads: 2 });
    const bytes = new TextEncoder().encode('not a model file');
    await expect(inspect(bytes, { wasm: mt })).rejects.toMatchObject({ code: 'BAD_FORMAT', offset: 0 });
  });

  test('loading leaves no process-wide error handlers behind', async () => {
    const before = ['uncaughtException', 'unhandledRejection'].map((e) => process.listenerCount(e));
    await releaseWasmModules();
    await loadWasmModule();
    await loadWasmModule({ threads: 2 });
    expect(['uncaughtException', 'unhandledRejection'].map((e) => process.listenerCount(e))).toEqual(before);
  });
});
