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
// The same builds with relaxed SIMD's 8-bit dot product in their fastest
// kernels (wasm/relaxed-simd.mjs), for engines that validate it.
const relaxedWasmUrl = {
  st: () => new URL('../../dist/wasmlm-st.relaxed.wasm', import.meta.url),
  mt: () => new URL('../../dist/wasmlm-mt.relaxed.wasm', import.meta.url),
};

// A module whose one function is i16x8.relaxed_dot_i8x16_i7x16_s.
const RELAXED_SIMD_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x07, 0x01, 0x60, 0x02, 0x7b, 0x7b, 0x01, 0x7b,
  0x03, 0x02, 0x01, 0x00, 0x0a, 0x0b, 0x01, 0x09, 0x00, 0x20, 0x00, 0x20, 0x01, 0xfd, 0x92, 0x02, 0x0b,
]);

/** Whether this engine runs relaxed SIMD (Chromium 114+; Node 20 only with --experimental-wasm-relaxed-simd). */
export function relaxedSimdAvailable() {
  try {
    return WebAssembly.validate(RELAXED_SIMD_PROBE);
  } catch {
    return false;
  }
}

/** @type {Map<string, Promise<object>>} keyed by build and SIMD flavour */
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
 * fixes its worker pool size (`threads`). `relaxedSimd`: 'auto' takes the
 * relaxed-SIMD copy where the engine has it; false never does.
 * @param {{threads?: number, relaxedSimd?: 'auto'|boolean}} [options]
 */
export function loadWasmModule({ threads = 1, relaxedSimd = 'auto' } = {}) {
  const variant = chooseVariant(threads);
  const relaxed = relaxedSimd !== false && relaxedSimdAvailable();
  const key = relaxed ? `${variant}-relaxed` : variant;
  let promise = loaded.get(key);
  if (!promise) {
    promise = instantiate(variant, Math.max(1, Math.floor(threads)), relaxed);
    loaded.set(key, promise);
    promise.catch(() => loaded.delete(key));
  }
  return promise;
}

async function instantiate(variant, poolSize, relaxed) {
  const url = (relaxed ? relaxedWasmUrl : wasmUrl)[variant]();
  const options = variant === 'mt' ? { wasmlmPoolSize: poolSize } : {};
  if (isNode) {
    const shims = await import('./node-shims.js');
    shims.installGlobals(new URL('.', url)); // web/dist/
    const [{ default: factory }, wasmBinary] = await Promise.all([importGlue[variant](), shims.readWasmBytes(url)]);
    const module = await shims.withoutGlueProcessHandlers(() => factory({ ...options, wasmBinary }));
    if (module.PThread) shims.unrefPthreadWorkers(module.PThread);
    return module;
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
