// The sequential load behind openModel(): chunks of the file go straight
// into the wasm Model's parser (which copies tensor bytes into their
// allocations); once the directory is parsed, the memory check runs before
// the weights arrive; progress is reported at most ~10 times a second.
import { abortedError, throwIfAborted, throwIfBindingError, WasmLMError } from '../errors.js';
import { pushBytes } from '../wasm/push-bytes.js';
import { startPrefault, stopPrefault } from '../wasm/prefault.js';
import { checkModelFits, estimateModelMemory, reserveHeap } from './memory-check.js';

/** While the header is parsed, bytes go in pieces this size, so the check comes before (nearly) any weights. */
const HEADER_PIECE = 64 * 1024;
const PROGRESS_INTERVAL_MS = 100;

export class ProgressReporter {
  #onProgress;
  #total;
  #bytes;
  #start = now();
  #last = -Infinity;
  loaded = 0;

  /** `bytes`: the model-bytes source (its size, and its origin for the events' `source`). */
  constructor(onProgress, bytes) {
    this.#onProgress = typeof onProgress === 'function' ? onProgress : null;
    this.#total = bytes.size ?? null;
    this.#bytes = bytes;
  }

  get total() {
    return this.#total;
  }

  /** The next shard of a split model: its size adds to the total (which stays unknown if one is). */
  addTotal(size) {
    this.#total = this.#total == null || size == null ? null : this.#total + size;
  }

  add(n, phase = 'download') {
    this.loaded += n;
    if (!this.#onProgress) return;
    const t = now();
    if (t - this.#last >= PROGRESS_INTERVAL_MS) this.#emit(phase, t);
  }

  /** An event now (phase changes and the end); an unknown total becomes what was loaded. */
  emit(phase, { final = false } = {}) {
    if (final && this.#total == null) this.#total = this.loaded;
    if (this.#onProgress) this.#emit(phase, now());
  }

  #emit(phase, t) {
    this.#last = t;
    const seconds = (t - this.#start) / 1000;
    this.#onProgress({
      loaded: this.loaded,
      total: this.#total,
      bytesPerSecond: seconds > 0 ? Math.round(this.loaded / seconds) : 0,
      phase,
      source: this.#bytes.origin,
    });
  }
}

/**
 * Feeds `bytes` (see model-bytes.js) into `model` until its parser is done.
 * @param {object} wasm
 * @param {object} model a wasm Model
 * @param {{size?: number, chunks(): AsyncIterable<Uint8Array>, close(): Promise<void>}} bytes
 * @param {{signal?: AbortSignal, progress: ProgressReporter, contextLength: number, kvCache: 'f16'|'f32'|'q8_0', memoryCheck?: boolean, shards?: number, threads?: number}} options
 *   shards: how many files of a split GGUF the caller has (1: an ordinary file); threads: the model's
 */
export async function streamIntoModel(wasm, model, bytes, {
  signal, progress, contextLength, kvCache, memoryCheck = true, shards = 1, quantize, threads = 1,
}) {
  const watcher = new DirectoryWatcher(wasm, model, bytes.size, { contextLength, kvCache, memoryCheck, shards, quantize, threads });
  // An abort while a read is pending: stop the source so the read settles now.
  const onAbort = () => {
    bytes.close().catch(() => {});
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    throwIfAborted(signal);
    progress.emit('download');
    for await (const chunk of bytes.chunks()) {
      throwIfAborted(signal);
      if (!watcher.checked) watcher.push(chunk);
      else pushBytes(wasm, model, chunk);
      progress.add(chunk.length);
      if (model.done()) break;
    }
    throwIfAborted(signal);
    if (!model.done()) throwIfBindingError(model.finish());
    watcher.finish();
  } catch (error) {
    // After an abort, errors of the stopped source (a cancelled body, a closed file) mean ABORTED.
    if (signal?.aborted && !(error instanceof WasmLMError && error.code === 'ABORTED')) throw abortedError(signal);
    throw error;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    stopPrefault(wasm);
    watcher.dispose();
    await bytes.close().catch(() => {});
  }
}

/**
 * Pushes the header in small pieces and, as soon as the model's parser
 * leaves the header, runs the memory check. Uses the Model's own
 * describe() when the binding has it, else a second Parser fed the same
 * header bytes.
 */
class DirectoryWatcher {
  checked = false;
  #wasm;
  #model;
  #size;
  #options;
  #parser = null;

  constructor(wasm, model, size, options) {
    this.#wasm = wasm;
    this.#model = model;
    this.#size = size;
    this.#options = options;
    if (typeof model.describe !== 'function') this.#parser = new wasm.Parser(size ?? 0);
  }

  push(chunk) {
    let at = 0;
    while (at < chunk.length && !this.checked) {
      const piece = chunk.subarray(at, Math.min(at + HEADER_PIECE, chunk.length));
      if (this.#parser) pushBytes(this.#wasm, this.#parser, piece);
      pushBytes(this.#wasm, this.#model, piece);
      at += piece.length;
      if (this.#model.need().phase !== 'header') this.#check();
    }
    if (at < chunk.length) pushBytes(this.#wasm, this.#model, chunk.subarray(at));
  }

  /** The file ended while still in the header: nothing to check. */
  finish() {
    this.checked = true;
  }

  #check() {
    this.checked = true;
    const source = this.#parser ?? this.#model;
    const complete = typeof source.directoryComplete === 'function' ? source.directoryComplete() : true;
    const directory = source.describe();
    this.#parser?.delete();
    this.#parser = null;
    const shards = Number(directory.metadata['split.count'] ?? 1);
    if (shards !== this.#options.shards && (shards > 1 || this.#options.shards > 1)) {
      throw new WasmLMError('BAD_FORMAT', shards > 1
        ? `this file is shard ${Number(directory.metadata['split.no'] ?? 0) + 1} of a split GGUF of ${shards} shards: `
          + `pass all ${shards} (an array of URLs, paths or Files) to load it`
        : `${this.#options.shards} files were given, but this one is not part of a split GGUF`, { offset: 0 });
    }
    if (!this.#options.memoryCheck) return;
    // A split model's first shard lists only its own tensors: the others are not counted yet.
    const estimate = estimateModelMemory(directory, { ...this.#options, fileSize: this.#size, complete });
    checkModelFits(this.#wasm, estimate, this.#options);
    if (this.#options.shards === 1 && !this.#options.quantize) {
      const fresh = reserveHeap(this.#wasm, estimate, this.#model.weightBytes?.() ?? 0);
      startPrefault(this.#wasm, fresh, this.#options.threads); // the new pages faulted in ahead of the copies
    }
  }

  dispose() {
    this.#parser?.delete();
    this.#parser = null;
  }
}

function now() {
  return globalThis.performance?.now() ?? Date.now();
}
