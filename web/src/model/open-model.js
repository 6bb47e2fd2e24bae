// openModel(): streams a model file into the wasm weight store (one
// allocation per tensor; the file is never held whole in JS or wasm) and
// returns a session that evaluates token ids. Runs in the calling thread:
// call it from a Worker in browsers.
import { WasmLMError, disposedError, throwIfAborted, throwIfBindingError } from '../errors.js';
import { checkGenerateOptions, checkModelOptions, checkTokenIds } from '../options.js';
import { loadWasmModule } from '../wasm/load-module.js';
import { openModelBytes, orderShards } from './model-bytes.js';
import { ProgressReporter, streamIntoModel } from './stream-load.js';
import { PTH_RUNS_AS, findCheckpoint, isPthName } from './checkpoint-files.js';
import { loadCheckpoint } from './checkpoint-load.js';
import { Tokenizer, openTokenizer } from '../tokenizer.js';
import { complete, generate } from './generate.js';
import { summarizeModel } from '../model-summary.js';

// kvCache option -> the binding's KV cache type (KvCacheType in native/model/kv_cache.h)
const KV_CACHE_TYPES = { f32: 0, f16: 1, q8_0: 2 };
import { decodeMetadata } from '../parse/metadata-values.js';

/**
 * @param {unknown} input URL, path, Blob, bytes or stream (as inspect()), an array of a split GGUF's shards,
 *   or a Meta LLaMA checkpoint: its folder (a Node path) or its files (params.json, consolidated.NN.pth,
 *   tokenizer.model: paths, URLs or Files)
 * @param {{threads?: number, contextLength?: number, kvCache?: 'f16'|'f32'|'q8_0', signal?: AbortSignal, fetch?: typeof fetch,
 *   onProgress?: (event: {loaded: number, total: number|null, bytesPerSecond: number, phase: 'download'|'build'|'ready'}) => void,
 *   retries?: number, retryDelay?: number, cache?: boolean, memoryCheck?: boolean, quantize?: string}} [options]
 *   quantize: quantize float matrices to this type (e.g. 'Q8_0', 'Q5_1') as they load (rwkv.cpp files: the
 *     matrices rwkv.cpp's quantizer picks; Meta checkpoints: every matrix whose rows hold whole blocks)
 *   tokenizer: a tokenizer file for a model file without a vocabulary (rwkv.cpp's: the RWKV World
 *     rwkv_vocab_v20230424.txt, or 20B_tokenizer.json), anything openTokenizer() reads
 */
export async function openModel(input, options = {}) {
  const {
    threads, contextLength, kvCache, signal, fetch, onProgress,
    retries = 3, retryDelay = 200, readTimeout = 60000, cache = false, memoryCheck = true, quantize, tokenizer,
  } = checkModelOptions(options);
  if (Array.isArray(input) && input.length === 0) throw new WasmLMError('BAD_OPTION', 'no model file given (an empty array)');
  throwIfAborted(signal);
  const wasm = await loadWasmModule({ threads });
  throwIfAborted(signal);
  const checkpoint = await findCheckpoint(input);
  if (!checkpoint && isPthName(input)) throw new WasmLMError('BAD_FORMAT', PTH_RUNS_AS, { offset: 0 });
  // A split GGUF is an array of its shards, read one after the other into the same model.
  const shards = checkpoint ? [] : Array.isArray(input) && input.length > 1 ? orderShards(input) : [input];
  const byteOptions = { signal, fetch, retries, retryDelay, readTimeout, cache };
  let bytes = checkpoint ? null : await openModelBytes(shards[0], byteOptions);
  let model;
  try {
    throwIfAborted(signal);
    model = new wasm.Model(bytes?.size ?? 0);
    const options = { signal, fetch, onProgress, contextLength, kvCache, memoryCheck, quantize, threads };
    let progress;
    if (checkpoint) {
      progress = await loadCheckpoint(wasm, model, checkpoint, options);
    } else {
      if (quantize) throwIfBindingError(model.quantizeOnLoad(String(quantize)));
      progress = new ProgressReporter(onProgress, bytes);
      for (let k = 0; k < shards.length; ++k) {
        if (k > 0) {
          bytes = await openModelBytes(shards[k], byteOptions);
          progress.addTotal(bytes.size);
          throwIfBindingError(model.beginShard(bytes.size ?? 0));
        }
        await streamIntoModel(wasm, model, bytes, {
          ...options, progress, memoryCheck: memoryCheck && k === 0, shards: shards.length,
        });
      }
    }
    progress.emit('build', { final: true });
    throwIfBindingError(model.build(contextLength, Math.max(1, Math.floor(threads)), KV_CACHE_TYPES[kvCache]));
    const ownTokenizer = tokenizer ?? checkpoint?.tokenizer;
    if (ownTokenizer !== undefined && ownTokenizer !== null) {
      const own = await openTokenizer(ownTokenizer, { signal, fetch, wasm });
      try {
        throwIfBindingError(model.useTokenizer(own.binding));
      } finally {
        own.dispose();
      }
    }
    throwIfAborted(signal);
    progress.emit('ready', { final: true });
    throwIfAborted(signal); // aborted by the last progress callback: the model is freed, not handed out
  } catch (error) {
    model?.delete();
    await bytes?.close().catch(() => {});
    throw error;
  }
  return new ModelSession(wasm, model, quantize ? String(quantize) : null);
}

const STATE_FORMAT = 'wasmlm-state-2';

class ModelSession {
  #wasm;
  #model;
  #tokenizer = null;
  #tokens = []; // the ids in the context
  #generation = null; // the run of the generation holding the session, if one does
  #quantize; // the type quantize-on-load was asked for, or null

  constructor(wasm, model, quantize = null) {
    this.#wasm = wasm;
    this.#model = model;
    this.#quantize = quantize;
    this.nVocab = model.nVocab();
    this.threads = model.threads();
    /** 'relaxed': the kernels use relaxed SIMD's 8-bit dot product; 'simd128': SIMD-128 only. */
    this.simd = wasm.relaxedSimd?.() ? 'relaxed' : 'simd128';
    /** general.architecture of a decoder ('llama', 'qwen3', 'gemma3', ...), or 'rwkv'. */
    this.architecture = model.architecture();
  }

  /** The model's tokenizer (created on first use). */
  get tokenizer() {
    this.#live();
    this.#tokenizer ??= new Tokenizer(this.#model.tokenizer());
    return this.#tokenizer;
  }

  /** Tokens evaluated since the last reset(). */
  get nPast() {
    return this.#live().nPast();
  }

  /**
   * Evaluates token ids after those already seen; returns a copy of the
   * logits after the last one (or nothing with {logits: false}, which saves
   * copying n_vocab floats per token when only sample() reads them).
   */
  eval(ids, options) {
    this.#idle();
    return this.#eval(checkTokenIds(ids, this.nVocab), options);
  }

  /** A copy of the logits after the last evaluated token (null before any). */
  logits() {
    return this.#live().logits();
  }

  /** The token ids in the context, in order. */
  get tokens() {
    return this.#tokens.slice();
  }

  /**
   * Keeps the longest prefix of the context that `ids` starts with and
   * returns the ids still to evaluate: none if `ids` is the context, else
   * at least the last one (for its logits). A model that cannot go back
   * there starts over: RWKV (a recurrent state), or a sliding-window model
   * whose rings no longer hold that point's window.
   */
  rewindTo(ids) {
    this.#idle();
    return this.#rewindTo(checkTokenIds(ids, this.nVocab));
  }

  /** The context (KV cache, last logits, token ids) to restore later with loadState(). */
  saveState() {
    this.#idle();
    this.#writeTokens(this.#tokens);
    const kv = this.#model.saveState(this.#tokens.length);
    if (!(kv instanceof Uint8Array)) throwIfBindingError(kv);
    return { format: STATE_FORMAT, tokens: this.#tokens.slice(), kv };
  }

  /**
   * Restores a saveState() of this model (same KV cache type, fitting the
   * context). A state of another model, vocabulary or context size, an
   * altered blob or a token list that disagrees with it is a typed error
   * that leaves the session as it was.
   */
  loadState(state) {
    this.#idle();
    if (state?.format === 'wasmlm-state-1') {
      throw new WasmLMError('UNSUPPORTED', 'the state was saved by an older wasmlm (wasmlm-state-1): save it again with this one');
    }
    if (state === null || typeof state !== 'object' || state.format !== STATE_FORMAT || !(state.kv instanceof Uint8Array)
        || !Array.isArray(state.tokens)) {
      throw new WasmLMError('BAD_FORMAT', 'not a state from saveState()');
    }
    const tokens = checkTokenIds(state.tokens, this.nVocab, 'the state\'s tokens');
    const ptr = this.#model.staging(state.kv.length) >>> 0;
    this.#wasm.HEAPU8.set(state.kv, ptr); // HEAPU8 read after staging(): the heap may have grown
    this.#writeTokens(tokens);
    throwIfBindingError(this.#model.loadState(state.kv.length, tokens.length));
    this.#tokens = tokens;
  }

  /**
   * The next token from the logits of the last eval(), with llama.cpp's
   * sampler chain (penalties, top-k, top-p, min-p, temperature; greedy when
   * temperature <= 0) and a seeded generator. The token is recorded for the
   * penalties. Options are read on the first call after resetSampler().
   */
  sample(options = {}) {
    this.#idle();
    const { maxTokens, ...sampling } = checkGenerateOptions(options, { nVocab: this.nVocab });
    return this.#sample(sampling);
  }

  /** Forgets the sampler's state (penalty window, random sequence, options). */
  resetSampler() {
    this.#idle();
    this.#model.resetSampler();
  }

  reset() {
    this.#idle();
    this.#reset();
  }

  /**
   * The model file's directory summary (as inspect() gives it), with the
   * tensors as stored (quantized on load: their new type and size), what
   * quantize-on-load did to which tensor (null if it was not asked), memory in
   * use, and how many matrices were repacked into row quads for the kernels.
   */
  describe() {
    const directory = this.#live().describe();
    const quantized = this.#model.quantizedOnLoad();
    return {
      ...summarizeModel({ ...directory, metadata: decodeMetadata(directory.metadata) }),
      quantization: this.#quantize ? { requested: this.#quantize, tensors: quantized } : null,
      memory: {
        weightBytes: this.#model.weightBytes(),
        kvCacheBytes: this.#model.kvCacheBytes(),
        wasmHeapBytes: this.#wasm.HEAPU8.buffer.byteLength,
      },
      rowQuads: this.#model.tensorsInQuads(),
    };
  }

  /** The context length the session was built with (tokens); Infinity for RWKV, which has no limit. */
  get contextLength() {
    return this.#live().nCtx() || Infinity;
  }

  /**
   * Streams generated text: yields {text, tokens} pieces, returns
   * {text, tokens, promptTokens, cachedPromptTokens, finishReason, timings}.
   * The prompt's tokens already in the context (its shared prefix) are not
   * evaluated again. Options: maxTokens, stop (strings), ignoreEos, signal, addBos,
   * parseSpecial, and the sampler's (temperature, topK, topP, minP,
   * repeatPenalty, presencePenalty, frequencyPenalty, penaltyLastN, seed, logitBias).
   * While it runs, the session's other calls (and another generation) throw BUSY.
   */
  generate(prompt, options) {
    return generate(this, prompt, options);
  }

  /** generate() run to the end: {text, tokens, promptTokens, finishReason, timings}. */
  complete(prompt, options) {
    return complete(this, prompt, options);
  }

  /**
   * @internal The session for one generation (see generate.js): its calls
   * skip the checks, and the session's own calls throw BUSY until release().
   */
  _acquire() {
    this.#idle();
    const model = this.#live();
    const run = {
      encode: (text, options) => this.tokenizer.encode(text, options),
      resetSampler: () => model.resetSampler(),
      rewindTo: (ids) => this.#rewindTo(ids),
      beginText: (options) => throwIfBindingError(model.beginText(options)),
      eval: (ids, options) => this.#eval(ids, options),
      sample: (options) => this.#sample(options),
      pushText: (id) => model.pushText(id),
      flushText: () => model.flushText(),
      get nPast() { return model.nPast(); },
      contextLength: this.contextLength,
      release: () => { if (this.#generation === run) this.#generation = null; },
    };
    this.#generation = run;
    return run;
  }

  dispose() {
    this.#generation = null;
    this.#tokenizer?.dispose();
    this.#tokenizer = null;
    if (!this.#model) return;
    this.#model.delete();
    this.#model = null;
  }

  #live() {
    if (!this.#model) throw disposedError();
    return this.#model;
  }

  #idle() {
    this.#live();
    if (this.#generation) {
      throw new WasmLMError('BUSY', 'a generation is running on this session: finish it, break out of it or abort it first');
    }
  }

  #writeTokens(ids) {
    const ptr = this.#model.tokenBuffer(ids.length) >>> 2;
    this.#wasm.HEAP32.set(ids, ptr);
  }

  #eval(ids, { logits = true } = {}) {
    const model = this.#live();
    this.#writeTokens(ids);
    throwIfBindingError(model.eval(ids.length));
    for (const id of ids) this.#tokens.push(id);
    return logits ? model.logits() : undefined;
  }

  #sample(sampling) {
    const model = this.#live();
    // A seed crosses as decimal digits: a BigInt up to 2^64 - 1 would not fit a double.
    const id = model.sample(sampling.seed === undefined ? sampling : { ...sampling, seed: String(sampling.seed) });
    if (typeof id !== 'number') throwIfBindingError(id);
    model.accept(id);
    return id;
  }

  #rewindTo(ids) {
    let keep = 0;
    const max = Math.min(this.#tokens.length, ids.length);
    while (keep < max && this.#tokens[keep] === ids[keep]) ++keep;
    // The whole context, and nothing more: its last logits are the ones wanted.
    if (keep === ids.length && keep === this.#tokens.length) return [];
    keep = Math.min(keep, ids.length - 1);
    if (!this.#model.truncate(keep)) {
      // The model cannot go back there (see above): start over.
      this.#reset();
      keep = 0;
    }
    this.#tokens.length = keep;
    return ids.slice(keep);
  }

  #reset() {
    this.#model.reset();
    this.#model.resetSampler();
    this.#tokens = [];
  }
}
