// The pthreads build faults fresh heap pages in on a helper thread while the
// loader copies weights into them (wasm/heap_prefault.cpp), but only with a
// pool worker to spare beyond the model's own threads: a pthread the pool
// lacks starts only once this thread returns to its event loop, and a
// ThreadPool waiting for one then would never return.

/** Starts the toucher on `range` ({begin, end} or null); whether it runs. */
export function startPrefault(wasm, range, threads) {
  if (!range || typeof wasm.prefaultStart !== 'function') return false;
  const spare = (wasm.PThread?.unusedWorkers?.length ?? 0) - (Math.max(1, Math.floor(threads)) - 1);
  return spare >= 1 && wasm.prefaultStart(range.begin, range.end);
}

/** Stops the toucher, if any, and waits for it. */
export function stopPrefault(wasm) {
  wasm.prefaultStop?.();
}
