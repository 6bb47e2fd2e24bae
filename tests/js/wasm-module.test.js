// Loading the wasm builds in Node: single-threaded and pthreads.
import { chooseVariant, inspect, loadWasmModule, releaseWasmModules } from '../../web/src/index.js';
import { startPrefault, stopPrefault } from '../../web/src/wasm/prefault.js';

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

  test('the page toucher runs only in the pthreads build and never changes a byte, even while the loader writes', async () => {
    for (const [wasm, threaded] of [[await loadWasmModule(), false], [await loadWasmModule({ threads: 2 }), true]]) {
      const size = 16 * 1024 * 1024 + 123;
      const ptr = wasm._malloc(size) >>> 0;
      const fill = (seed) => {
        const heap = wasm.HEAPU8; // after any growth
        for (let i = 0; i < size; i += 1) heap[ptr + i] = (i * 7 + seed) & 0xff;
      };
      fill(1);
      expect(wasm.prefaultStart(ptr, ptr + size)).toBe(threaded);
      fill(2); // races the toucher
      wasm.prefaultStop();
      wasm.prefaultStop(); // idempotent
      const heap = wasm.HEAPU8;
      let wrong = 0;
      for (let i = 0; i < size; i += 1) if (heap[ptr + i] !== ((i * 7 + 2) & 0xff)) wrong += 1;
      expect(wrong).toBe(0);
      expect(wasm.prefaultStart(ptr, ptr)).toBe(false); // an empty range starts nothing
      wasm._free(ptr);
    }
  });

  test('the loader starts the toucher only with a pool worker to spare beyond the model\'s threads', async () => {
    const mt = await loadWasmModule({ threads: 2 }); // a pool of 2 workers
    const ptr = mt._malloc(1 << 20) >>> 0;
    const range = { begin: ptr, end: ptr + (1 << 20) };
    expect(startPrefault(mt, range, 3)).toBe(false); // 2 for the model's threads, none to spare
    expect(startPrefault(mt, null, 2)).toBe(false);
    expect(startPrefault(mt, range, 2)).toBe(true); // 1 for the model, 1 spare
    stopPrefault(mt);
    expect(startPrefault(await loadWasmModule(), range, 1)).toBe(false); // no threads in this build
    mt._free(ptr);
  });

  test('loading leaves no process-wide error handlers behind', async () => {
    const before = ['uncaughtException', 'unhandledRejection'].map((e) => process.listenerCount(e));
    await releaseWasmModules();
    await loadWasmModule();
    await loadWasmModule({ threads: 2 });
    expect(['uncaughtException', 'unhandledRejection'].map((e) => process.listenerCount(e))).toEqual(before);
  });
});
