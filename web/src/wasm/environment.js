// Where this code runs decides which wasm build it may use: the pthreads
// build needs shared memory (Node, or a cross-origin-isolated browser page)
// and must never block a browser's main thread, so there only in a Worker.

export const isNode = typeof process === 'object' && typeof process.versions?.node === 'string';

export const isBrowserWorker =
  !isNode && typeof WorkerGlobalScope === 'function' && globalThis instanceof WorkerGlobalScope;

export function threadsAvailable() {
  if (isNode) return true;
  return isBrowserWorker && globalThis.crossOriginIsolated === true;
}
