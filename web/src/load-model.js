// loadModel(): a model running in its own Web Worker (a worker_thread in
// Node), so the page never blocks. Requests cross as messages; generated
// text comes back piece by piece through async iterators.
import { WasmLMError, abortedError, disposedError, throwIfAborted } from './errors.js';
import { checkGenerateOptions, checkMessages, checkModelOptions, checkPrompt, checkText, checkTokenIds } from './options.js';

/** How long dispose() waits for the worker to free the model before it ends the worker anyway. */
const DISPOSE_GRACE_MS = 1000;

const isNode = typeof process === 'object' && process.versions?.node != null && typeof window === 'undefined'
  && typeof self === 'undefined';

/**
 * @param {string|URL|Blob|ArrayBuffer|ArrayBufferView|Array<string|URL|Blob>} source a model file, or a split GGUF's shards
 * @param {{threads?: number|'auto', contextLength?: number, kvCache?: 'f16'|'f32'|'q8_0', onProgress?: Function, signal?: AbortSignal}} [options]
 */
export async function loadModel(source, options = {}) {
  const { threads, onProgress, signal, ...rest } = checkModelOptions(options, { worker: true });
  throwIfAborted(signal);
  const port = await startWorker();
  const transfer = [];
  const plain = (x) => (x instanceof URL ? x.href : pageRelative(x)); // URL objects do not cross to a worker
  let payload = Array.isArray(source) ? source.map(plain) : plain(source);
  if (ArrayBuffer.isView(payload)) { // a copy the worker owns (Buffer#slice would not copy)
    payload = new Uint8Array(payload.buffer, payload.byteOffset, payload.byteLength).slice().buffer;
  }
  if (payload instanceof ArrayBuffer) transfer.push(payload);
  const workerOptions = { ...rest, threads: resolveThreads(threads) };
  if (workerOptions.tokenizer !== undefined) {
    const t = workerOptions.tokenizer;
    workerOptions.tokenizer = Array.isArray(t) ? t.map(plain) : plain(t);
  }
  // A path, URL or Blob can be read again if the worker has to be restarted; transferred bytes cannot.
  const lm = new LanguageModel(port, transfer.length ? null : { source: payload, options: workerOptions });
  try {
    lm.info = await lm._request('load', { source: payload, options: workerOptions }, { signal, onProgress, transfer });
  } catch (error) {
    await lm.dispose(); // ends the worker: a model that finished loading after an abort goes with it
    throw error;
  }
  return lm;
}

/**
 * A relative URL as the page means it: against document.baseURI, as fetch()
 * in the page would resolve it (the worker would take its own script's URL).
 * Node paths and absolute URLs stay as they are.
 */
function pageRelative(x) {
  const base = globalThis.document?.baseURI;
  if (typeof x !== 'string' || !base || /^[a-z][a-z0-9+.-]*:/i.test(x)) return x;
  return new URL(x, base).href;
}

export class LanguageModel {
  #port;
  #nextId = 1;
  #pending = new Map(); // id -> {resolve, reject, onPiece, onProgress}
  #reload; // {source, options} to load the model again in a new worker; null if it cannot be
  #restarting = null; // a promise while a new worker loads the model
  #failure = null; // set when the worker crashed and could not be replaced
  #disposed = false;
  #disposing = null; // dispose()'s promise

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
    return this.#checked(() => ({ text: checkText(text), addBos, parseSpecial }), (args) => this._request('tokenize', args));
  }

  /** Token ids -> text. */
  detokenize(ids, { renderSpecial = false } = {}) {
    return this.#checked(() => ({ ids: checkTokenIds(ids, this.info?.nVocab), renderSpecial }),
      (args) => this._request('detokenize', args));
  }

  /** Streams {text, tokens} pieces; the iterator's return value is the Completion. */
  generate(prompt, options = {}) {
    return this.#stream('generate', () => ({
      prompt: checkPrompt(prompt, this.info?.nVocab),
      options: checkGenerateOptions(options, { nVocab: this.info?.nVocab }),
    }));
  }

  /** generate() to the end: {text, tokens, promptTokens, finishReason, timings}. */
  async complete(prompt, options = {}) {
    return drain(this.generate(prompt, options));
  }

  /** Streams a reply to chat messages rendered with the model's chat template. */
  chat(messages, options = {}) {
    return this.#stream('chat', () => ({
      messages: checkMessages(messages),
      options: checkGenerateOptions(options, { nVocab: this.info?.nVocab, kind: 'chat' }),
    }));
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

  /**
   * Frees the model and ends the worker. Every pending call rejects with
   * DISPOSED, and so does every later one. Resolves once the worker is gone
   * (ended after a short grace period if it is stuck in a long step).
   */
  dispose() {
    this.#disposing ??= this.#dispose();
    return this.#disposing;
  }

  async #dispose() {
    this.#disposed = true;
    const error = disposedError();
    for (const p of this.#pending.values()) p.reject(error);
    this.#pending.clear();
    const port = this.#port;
    if (!this.#failure && !this.#restarting) {
      // Let the worker free the model, but never wait on it for long.
      const freed = new Promise((resolve) => {
        const id = this.#nextId++;
        this.#pending.set(id, { resolve, reject: resolve });
        port.post({ id, op: 'dispose', args: {} });
      });
      let timer;
      await Promise.race([freed, new Promise((resolve) => { timer = setTimeout(resolve, DISPOSE_GRACE_MS); })]);
      clearTimeout(timer);
      this.#pending.clear();
    }
    await Promise.resolve(port.terminate()).catch(() => {});
  }

  /** @internal: requests wait while a crashed worker is replaced, and fail once it cannot be. */
  _request(op, args, options) {
    if (this.#disposed) return Promise.reject(disposedError());
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#restarting) return this.#restarting.then(() => this._request(op, args, options));
    return this.#send(op, args, options);
  }

  // Arguments checked on this side (a BAD_OPTION rejects before anything crosses).
  #checked(check, send) {
    let args;
    try {
      args = check();
    } catch (error) {
      return Promise.reject(error);
    }
    return send(args);
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
      if (this.#disposed) { // disposed while the new worker started: it is not needed
        await port.terminate();
        throw disposedError();
      }
      this.#attach(port);
      this.info = await this.#send('load', this.#reload);
      this.restarts += 1;
    })().then(() => { this.#restarting = null; }, (cause) => {
      this.#restarting = null;
      this.#failure = new WasmLMError('INTERNAL', `the model worker crashed and could not be restarted: ${cause?.message ?? cause}`);
    });
  }

  // An abort rejects the call at once (the worker is told to stop, and
  // whatever it answers later is dropped); an answer that arrives after the
  // signal aborted is an abort too.
  #send(op, args, { signal, onProgress, onPiece, transfer } = {}) {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(abortedError(signal));
      const abort = () => {
        const p = this.#pending.get(id);
        if (!p) return;
        this.#pending.delete(id);
        this.#port.post({ id: this.#nextId++, op: 'abort', args: { target: id } });
        p.reject(abortedError(signal));
      };
      signal?.addEventListener('abort', abort, { once: true });
      const done = () => signal?.removeEventListener('abort', abort);
      this.#pending.set(id, {
        onProgress, onPiece,
        resolve: (value) => {
          done();
          if (signal?.aborted) reject(abortedError(signal));
          else resolve(value);
        },
        reject: (error) => { done(); reject(error); },
      });
      try {
        this.#port.post({ id, op, args }, transfer);
      } catch (cause) { // a value that cannot be cloned to the worker
        this.#pending.delete(id);
        done();
        reject(new WasmLMError('BAD_OPTION', `${op}: an argument cannot be sent to the model's worker (${cause.message})`, { cause }));
      }
    });
  }

  // Pieces arrive as messages; the iterator hands them out in order.
  #stream(op, check) {
    const queue = [];
    let wake = null;
    let finished = false;
    let result;
    let failure;
    const notify = () => { wake?.(); wake = null; };
    const controller = new AbortController();
    let signal;
    const onAbort = () => controller.abort(signal.reason);
    let request;
    try {
      const { options: { signal: callerSignal, ...options }, ...args } = check();
      signal = callerSignal;
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) controller.abort(signal.reason);
      request = this._request(op, { ...args, options }, {
        signal: controller.signal,
        onPiece: (piece) => { queue.push(piece); notify(); },
      });
    } catch (error) {
      request = Promise.reject(error);
    }
    request.then((value) => { result = value; }, (error) => { failure = error; })
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
