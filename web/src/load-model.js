// loadModel(): a model running in its own Web Worker (a worker_thread in
// Node), so the page never blocks. Requests cross as messages; generated
// text comes back piece by piece through async iterators.
import { WasmLMError, abortedError, throwIfAborted } from './errors.js';

const isNode = typeof process === 'object' && process.versions?.node != null && typeof window === 'undefined'
  && typeof self === 'undefined';

/**
 * @param {string|URL|Blob|ArrayBuffer|ArrayBufferView|Array<string|URL|Blob>} source a model file, or a split GGUF's shards
 * @param {{threads?: number|'auto', contextLength?: number, kvCache?: 'f16'|'f32', onProgress?: Function, signal?: AbortSignal}} [options]
 */
export async function loadModel(source, { threads = 'auto', contextLength = 2048, kvCache = 'f16', onProgress, signal, ...rest } = {}) {
  throwIfAborted(signal);
  const port = await startWorker();
  const transfer = [];
  const plain = (x) => (x instanceof URL ? x.href : x); // URL objects do not cross to a worker
  let payload = Array.isArray(source) ? source.map(plain) : plain(source);
  if (ArrayBuffer.isView(payload)) { // a copy the worker owns (Buffer#slice would not copy)
    payload = new Uint8Array(payload.buffer, payload.byteOffset, payload.byteLength).slice().buffer;
  }
  if (payload instanceof ArrayBuffer) transfer.push(payload);
  const options = { ...rest, threads: resolveThreads(threads), contextLength, kvCache };
  // A path, URL or Blob can be read again if the worker has to be restarted; transferred bytes cannot.
  const lm = new LanguageModel(port, transfer.length ? null : { source: payload, options });
  try {
    lm.info = await lm._request('load', { source: payload, options }, { signal, onProgress, transfer });
  } catch (error) {
    await port.terminate();
    throw error;
  }
  return lm;
}

export class LanguageModel {
  #port;
  #nextId = 1;
  #pending = new Map(); // id -> {resolve, reject, onPiece, onProgress}
  #reload; // {source, options} to load the model again in a new worker; null if it cannot be
  #restarting = null; // a promise while a new worker loads the model
  #failure = null; // set when the worker crashed and could not be replaced
  #disposed = false;

  /** What loaded: architecture, tokenizer, sizes, chat template, threads, build, memory. */
  info = null;
  /** How many times a crashed worker was replaced (the model loaded again from its source). */
  restarts = 0;

  constructor(port, reload = null) {
    this.#reload = reload;
    this.#attach(port);
  }

  /** Text -> token ids with the model's vocabulary. */
  tokenize(text, { addBos, parseSpecial = false } = {}) {
    return this._request('tokenize', { text, addBos, parseSpecial });
  }

  /** Token ids -> text. */
  detokenize(ids, { renderSpecial = false } = {}) {
    return this._request('detokenize', { ids: Array.from(ids), renderSpecial });
  }

  /** Streams {text, tokens} pieces; the iterator's return value is the Completion. */
  generate(prompt, options = {}) {
    return this.#stream('generate', { prompt: typeof prompt === 'string' ? prompt : Array.from(prompt) }, options);
  }

  /** generate() to the end: {text, tokens, promptTokens, finishReason, timings}. */
  async complete(prompt, options = {}) {
    return drain(this.generate(prompt, options));
  }

  /** Streams a reply to chat messages rendered with the model's chat template. */
  chat(messages, options = {}) {
    return this.#stream('chat', { messages }, options);
  }

  /** Clears the context. */
  reset() {
    return this._request('reset', {});
  }

  /** The context (KV cache, last logits, ids); generate() reuses it as a prompt prefix. */
  saveState() {
    return this._request('saveState', {});
  }

  /** Restores a saveState() of the same model. */
  loadState(state) {
    return this._request('loadState', { state });
  }

  /** Frees the model and ends the worker. */
  async dispose() {
    this.#disposed = true;
    try {
      if (!this.#failure) await this._request('dispose', {});
    } finally {
      await this.#port.terminate();
    }
  }

  /** @internal: requests wait while a crashed worker is replaced, and fail once it cannot be. */
  _request(op, args, options) {
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#restarting) return this.#restarting.then(() => this._request(op, args, options));
    return this.#send(op, args, options);
  }

  #attach(port) {
    this.#port = port;
    port.onMessage((message) => { if (this.#port === port) this.#receive(message); });
    port.onError((error) => {
      if (this.#port === port) this.#crashed(new WasmLMError('INTERNAL', `the model worker failed: ${error?.message ?? error}`));
    });
  }

  // The worker is gone (or its wasm instance unusable): every request in
  // flight fails with `error`; a new worker loads the model again from its
  // source, and later requests go there.
  #crashed(error) {
    if (this.#restarting || this.#failure) return;
    for (const p of this.#pending.values()) p.reject(error);
    this.#pending.clear();
    const old = this.#port;
    Promise.resolve(old.terminate()).catch(() => {});
    if (this.#disposed) return;
    if (!this.#reload) {
      this.#failure = new WasmLMError('INTERNAL', `${error.message}; the model came from bytes that were handed over, `
        + 'so it cannot be loaded again: call loadModel() again');
      return;
    }
    this.#restarting = (async () => {
      const port = await startWorker();
      this.#attach(port);
      this.info = await this.#send('load', this.#reload);
      this.restarts += 1;
    })().then(() => { this.#restarting = null; }, (cause) => {
      this.#restarting = null;
      this.#failure = new WasmLMError('INTERNAL', `the model worker crashed and could not be restarted: ${cause?.message ?? cause}`);
    });
  }

  #send(op, args, { signal, onProgress, onPiece, transfer } = {}) {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const abort = () => this.#port.post({ id: this.#nextId++, op: 'abort', args: { target: id } });
      if (signal) {
        if (signal.aborted) return reject(abortedError(signal));
        signal.addEventListener('abort', abort, { once: true });
      }
      const done = () => signal?.removeEventListener('abort', abort);
      this.#pending.set(id, {
        onProgress, onPiece,
        resolve: (value) => { done(); resolve(value); },
        reject: (error) => { done(); reject(error); },
      });
      this.#port.post({ id, op, args }, transfer);
    });
  }

  // Pieces arrive as messages; the iterator hands them out in order.
  #stream(op, args, { signal, ...options }) {
    const queue = [];
    let wake = null;
    let finished = false;
    let result;
    let failure;
    const notify = () => { wake?.(); wake = null; };
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    this._request(op, { ...args, options }, {
      signal: controller.signal,
      onPiece: (piece) => { queue.push(piece); notify(); },
    }).then((value) => { result = value; }, (error) => { failure = error; })
      .finally(() => { finished = true; signal?.removeEventListener('abort', onAbort); notify(); });
    return {
      [Symbol.asyncIterator]() { return this; },
      async next() {
        for (;;) {
          if (queue.length) return { value: queue.shift(), done: false };
          if (finished) {
            if (failure) throw failure;
            return { value: result, done: true };
          }
          await new Promise((resolve) => { wake = resolve; });
        }
      },
      async return(value) { // the consumer stopped early (break): stop the worker's loop too
        if (!finished) controller.abort();
        return { value, done: true };
      },
    };
  }

  #receive({ id, type, progress, piece, result, error }) {
    const p = this.#pending.get(id);
    if (!p) return;
    if (type === 'progress') p.onProgress?.(progress);
    else if (type === 'piece') p.onPiece?.(piece);
    else {
      this.#pending.delete(id);
      if (type === 'result') {
        p.resolve(result);
      } else {
        const failure = new WasmLMError(error.code, error.message, { offset: error.offset });
        p.reject(failure);
        if (error.fatal) this.#crashed(failure);
      }
    }
  }
}

async function drain(iterator) {
  for (;;) {
    const { value, done } = await iterator.next();
    if (done) return value;
  }
}

function resolveThreads(threads) {
  if (threads !== 'auto') return Math.max(1, Math.floor(threads));
  if (isNode) return Math.min(4, globalThis.navigator?.hardwareConcurrency ?? 2);
  if (!globalThis.crossOriginIsolated) return 1; // no SharedArrayBuffer: the single-threaded build
  return Math.min(4, navigator.hardwareConcurrency ?? 1);
}

// The same small port over a browser Worker and a Node worker_thread.
// The browser Worker is created as `new Worker(new URL('...', import.meta.url),
// { type: 'module' })`, written out in full: bundlers (Vite, webpack)
// recognise exactly that form and bundle the worker script; the Node URL is
// marked for them to leave alone.
async function startWorker() {
  if (isNode) {
    const { Worker } = await import('node:worker_threads');
    const worker = new Worker(new URL(/* @vite-ignore */ './worker/model-worker.js', import.meta.url));
    let terminating = false;
    return {
      post: (message, transfer) => worker.postMessage(message, transfer),
      onMessage: (f) => worker.on('message', f),
      onError: (f) => {
        worker.on('error', f);
        worker.on('exit', (code) => { if (!terminating) f(new Error(`the worker exited (code ${code})`)); });
      },
      terminate: () => { terminating = true; return worker.terminate(); },
    };
  }
  const worker = new Worker(new URL('./worker/model-worker.js', import.meta.url), { type: 'module' });
  return {
    post: (message, transfer) => worker.postMessage(message, transfer ?? []),
    onMessage: (f) => { worker.onmessage = (event) => f(event.data); },
    onError: (f) => { worker.onerror = (event) => f(event.error ?? new Error(event.message)); },
    terminate: async () => worker.terminate(),
  };
}
