// Loads the wasm core: the single-threaded build ('st') or the pthreads build
// ('mt'). The package reads the .wasm bytes itself and hands them to the glue
// as `wasmBinary`: the 3.1.6 glue would otherwise try to fetch a file path in
// Node, or guess URLs in bundlers.
import { isNode, threadsAvailable } from './environment.js';
import { WasmLMError } from '../errors.js';

// Each file named by a string literal, `import('...')` and
// `new URL('...', import.meta.url)`: the forms bundlers (Vite, webpack)
// follow, bundling the glue and emitting the .wasm as an asset.
const importGlue = {
  st: () => import('../../dist/wasmlm-st.mjs'),
  mt: () => import('../../dist/wasmlm-mt.mjs'),
};
const wasmUrl = {
  st: () => new URL('../../dist/wasmlm-st.wasm', import.meta.url),
  mt: () => new URL('../../dist/wasmlm-mt.wasm', import.meta.url),
};

/** @type {Map<'st'|'mt', Promise<object>>} */
const loaded = new Map();

/** The build loadWasmModule({threads}) would pick here. */
export function chooseVariant(threads = 1) {
  return threads > 1 && threadsAvailable() ? 'mt' : 'st';
}

/**
 * Loads (once per build) and returns the Emscripten module.
 * `threads` > 1 asks for the pthreads build; it is used where shared memory
 * works (Node, a cross-origin-isolated browser Worker), otherwise the
 * single-threaded build is returned. The first load of the pthreads build
 * fixes its worker pool size (`threads`).
 * @param {{threads?: number}} [options]
 */
export function loadWasmModule({ threads = 1 } = {}) {
  const variant = chooseVariant(threads);
  let promise = loaded.get(variant);
  if (!promise) {
    promise = instantiate(variant, Math.max(1, Math.floor(threads)));
    loaded.set(variant, promise);
    promise.catch(() => loaded.delete(variant));
  }
  return promise;
}

async function instantiate(variant, poolSize) {
  const url = wasmUrl[variant]();
  // One pthread more than the model's threads: the loader's page toucher
  // (wasm/heap_prefault.cpp). A pthread the pool lacks starts only once this
  // thread returns to its event loop, and a ThreadPool waiting for it then
  // would never return.
  const options = variant === 'mt' ? { wasmlmPoolSize: poolSize + 1 } : {};
  if (isNode) {
    const shims = await import('./node-shims.js');
    shims.installGlobals(new URL('.', url)); // web/dist/
    const [{ default: factory }, wasmBinary] = await Promise.all([importGlue[variant](), shims.readWasmBytes(url)]);
    return shims.withoutGlueProcessHandlers(() => factory({ ...options, wasmBinary }));
  }
  const [{ default: factory }, wasmBinary] = await Promise.all([importGlue[variant](), fetchBytes(url)]);
  return factory({ ...options, wasmBinary });
}

async function fetchBytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new WasmLMError('IO', `cannot load ${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

/**
 * Stops the pthreads of every loaded module and forgets them, so a Node
 * process can exit. Later loads start afresh.
 */
export async function releaseWasmModules() {
  const modules = await Promise.allSettled(loaded.values());
  loaded.clear();
  for (const m of modules) {
    if (m.status === 'fulfilled') m.value.PThread?.terminateAllThreads();
  }
}
