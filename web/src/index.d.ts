// Types for the wasmlm package (hand-written; the code is plain ESM JavaScript).

// ---------------------------------------------------------------- errors ----

export type ErrorCode =
  | 'TRUNCATED'     // the file ends before a structure is complete
  | 'BAD_FORMAT'    // the bytes do not form a valid file of the detected format
  | 'UNSUPPORTED'   // a valid file using a feature, type or version not handled
  | 'TOO_LARGE'     // a declared size exceeds sane limits or the file size
  | 'REFUSED'       // the input asks for something never done (e.g. code execution)
  | 'OUT_OF_MEMORY'
  | 'ABORTED'       // the caller's AbortSignal fired
  | 'INTERNAL'      // a bug in wasmlm
  | 'IO'            // the source could not be read (network, file system, HTTP status, a stalled read)
  | 'BAD_OPTION'    // an argument or option of a call is not valid (the message names it)
  | 'TEMPLATE'      // the chat template does not parse, fails, or exceeds its step/output budget
  | 'BUSY'          // a ModelSession (openModel) is generating: another call must wait for it to end
  | 'DISPOSED';     // the model was disposed (pending calls, and calls after dispose())

export const ERROR_CODES: readonly ErrorCode[];

export class WasmLMError extends Error {
  constructor(code: ErrorCode, message: string, options?: { offset?: number | null; cause?: unknown });
  readonly name: 'WasmLMError';
  readonly code: ErrorCode;
  /** Byte offset in the file where the problem was noticed; null when not tied to a position. */
  readonly offset: number | null;
  /** The message without its "at byte N: " prefix. */
  readonly detail: string;
}

// --------------------------------------------------------------- sources ----

/** Where model bytes come from. */
export interface ByteSource {
  /** Total bytes, when known. */
  size: number | undefined;
  /** Random access; returns fewer bytes than asked only at the end of the file. */
  read?(offset: number, length: number): Promise<Uint8Array>;
  /** The whole file in order, for sources without random access. */
  stream?(): ReadableStream<Uint8Array>;
  close?(): void | Promise<void>;
}

/**
 * - string: an http(s)/blob:/data: URL; in Node also a path or file: URL
 *   (in a browser a relative string is resolved against the page)
 * - URL, Blob/File, ArrayBuffer, typed array or Node Buffer
 * - Response, ReadableStream or (in Node) stream.Readable: read once, in order
 * - a ByteSource of your own
 */
export type InspectInput =
  | string
  | URL
  | Blob
  | ArrayBuffer
  | ArrayBufferView
  | Response
  | ReadableStream<Uint8Array>
  | NodeReadableLike
  | ByteSource;

/** A Node stream.Readable (typed structurally: no dependency on @types/node). */
export interface NodeReadableLike {
  pipe(destination: any, options?: any): unknown;
  on(event: string, listener: (...args: any[]) => void): unknown;
  read(size?: number): unknown;
}

export interface SourceOptions {
  signal?: AbortSignal;
  /** Used for URLs instead of the global fetch. */
  fetch?: typeof fetch;
  /**
   * URLs: milliseconds without any bytes (headers or body) before a request
   * fails with IO; a model download is then resumed with a Range request
   * while `retries` last. Default 60000; Infinity: no limit.
   */
  readTimeout?: number;
}

/**
 * Opens `input` as a ByteSource. URLs are probed with a Range request: a 206
 * gives random access; a 200 (Range ignored) gives a stream of the body.
 */
export function openByteSource(input: InspectInput, options?: SourceOptions): Promise<ByteSource>;

// ------------------------------------------------------------------ wasm ----

export interface WasmTypeInfo {
  id: number;
  name: string;
  blockSize: number;
  typeSize: number;
  quantized: boolean;
}

export interface BindingError {
  code: ErrorCode;
  offset: number | null;
  message: string;
}

export interface ParserNeed {
  phase: 'header' | 'data' | 'done';
  /** File offset of the next byte to push. */
  offset: number;
  /** header: at least this many more bytes; data: bytes to the end of `tensor`'s data. */
  length: number;
  /** data: index into describe().tensors; else -1. */
  tensor: number;
}

/** The incremental model-file parser of the wasm core (an Embind object: call delete()). */
export interface WasmParser {
  need(): ParserNeed;
  /** Address of a staging buffer of at least n bytes in the wasm heap. */
  staging(n: number): number;
  push(n: number): BindingError | null;
  skipData(): BindingError | null;
  finish(): BindingError | null;
  directoryComplete(): boolean;
  describe(): RawModelDirectory;
  releaseStaging(): void;
  delete(): void;
}

/** The Emscripten module of the wasm core. */
export interface WasmModule {
  Parser: new (fileSize: number) => WasmParser;
  typeTable(): WasmTypeInfo[];
  threadedBuild(): boolean;
  /** Runs n threads; returns how many ran (n in the pthreads build, 1 otherwise). */
  threadSelfTest(n: number): number;
  /** Whether this is the relaxed-SIMD copy of the build (and the engine runs it). */
  relaxedSimd(): boolean;
  /** Pthreads build: faults the heap pages [begin, end) in on a thread (false elsewhere); prefaultStop() ends it. */
  prefaultStart(begin: number, end: number): boolean;
  prefaultStop(): void;
  /** 'gguf' | 'sentencepiece' | 'tokenizer.json' | 'tiktoken' | 'unknown', from a file's first bytes. */
  tokenizerFileFormat(head: Uint8Array): string;
  /** A wasm Tokenizer binding from a whole tokenizer file (wrap it with openTokenizer() instead). */
  tokenizerFromFile(bytes: Uint8Array, tiktokenSpecialTokens: false | number | Array<[string, number]> | null): unknown;
  HEAPU8: Uint8Array;
  PThread?: { terminateAllThreads(): void };
}

export interface LoadOptions {
  /**
   * More than 1 asks for the pthreads build, used where shared memory works
   * (Node; a cross-origin-isolated browser Worker), else the single-threaded
   * build is returned. The first pthreads load fixes the worker pool size.
   */
  threads?: number;
  /** 'auto' (default): the relaxed-SIMD copy of the build where the engine validates relaxed SIMD; false: never. */
  relaxedSimd?: 'auto' | boolean;
}

/** Loads (once per build) the wasm core. */
export function loadWasmModule(options?: LoadOptions): Promise<WasmModule>;
/** Whether this engine runs relaxed SIMD (Chromium 114+; Node 20 only with --experimental-wasm-relaxed-simd). */
export function relaxedSimdAvailable(): boolean;
/** The build loadWasmModule({threads}) picks in this environment. */
export function chooseVariant(threads?: number): 'st' | 'mt';
/** Stops the pthreads of every loaded module and forgets them (lets Node exit). */
export function releaseWasmModules(): Promise<void>;

// ------------------------------------------------------------- directory ----

export type MetadataTypeName = string; // 'u32' | 'f32' | 'string' | 'array<string>' | 'array<array<i32>>' ...

/** A metadata value as decoded by inspect(). */
export type MetadataValue =
  | number
  | bigint
  | string
  | boolean
  | Uint8Array | Int8Array | Uint16Array | Int16Array | Uint32Array | Int32Array
  | Float32Array | Float64Array | BigUint64Array | BigInt64Array
  | boolean[]
  | string[]
  | MetadataValue[];

/** How the bindings pass string arrays; see unpackStrings(). */
export interface PackedStrings {
  packedStrings: Uint8Array;
  /** n + 1 offsets into packedStrings. */
  offsets: Uint32Array;
}

export interface TensorInfo {
  name: string;
  /** ggml type name, e.g. 'F32', 'Q4_0'. */
  type: string;
  typeId: number;
  /** Dimensions in ggml order (ne0 first: the row length). */
  shape: number[];
  /** Absolute byte offset of the data in the file. */
  offset: number;
  nbytes: number;
  /** PyTorch tensors (inspect() of a .pth): torch's dtype ('BF16', 'F32', 'I64', ...; also in `type`). */
  dtype?: string;
  /** PyTorch tensors: strides in elements, as torch has them (shape is torch's order too). */
  stride?: number[];
  /** PyTorch tensors: the storage's key (the zip entry data/<key>) and the offset into it in elements. */
  storage?: string;
  storageOffset?: number;
  /** PyTorch tensors: row-major without gaps. */
  contiguous?: boolean;
  /** A Meta checkpoint's tensors: the index of the consolidated.NN.pth shard that holds it. */
  shard?: number;
}

export type ModelFormat = 'gguf' | 'rwkv-bin' | 'ggml' | 'ggmf' | 'ggjt'
  | 'pytorch-zip' | 'pytorch-legacy' // inspect() of a .pth/.pt
  | 'meta-checkpoint'; // inspect() of a Meta LLaMA checkpoint folder (or its files)

/** parser.describe() as returned by the bindings (string arrays still packed). */
export interface RawModelDirectory {
  format: ModelFormat;
  version: number;
  endianness: 'little' | 'big';
  alignment: number;
  dataOffset: number;
  /** 0 when unknown. */
  fileSize: number;
  trailingBytes: number;
  metadata: Record<string, unknown>;
  metadataTypes: Record<string, MetadataTypeName>;
  tensors: TensorInfo[];
  warnings: string[];
}

/** Runs the parser over a source until the tensor directory is complete. */
export function readModelDirectory(
  wasm: WasmModule,
  source: ByteSource,
  options?: { signal?: AbortSignal },
): Promise<RawModelDirectory>;

export function decodeMetadata(metadata: Record<string, unknown>): Record<string, MetadataValue>;
/** Decodes packed strings as UTF-8 (invalid bytes become U+FFFD). */
export function unpackStrings(packed: PackedStrings): string[];

// --------------------------------------------------------------- inspect ----

export interface TokenizerSummary {
  /** tokenizer.ggml.model: 'llama', 'gpt2', 'bert', ... */
  model: string | null;
  /** Number of tokens. */
  size: number | null;
  bos: number | null;
  eos: number | null;
  unk: number | null;
  pad: number | null;
  /** tokenizer.ggml.pre: the pre-tokenizer name. */
  pre: string | null;
  addBos: boolean | null;
  addEos: boolean | null;
  hasChatTemplate: boolean;
}

/** Hyperparameters from the `${architecture}.*` keys; null when absent. */
export interface ArchitectureSummary {
  name: string | null;
  contextLength: number | null;
  embeddingLength: number | null;
  blockCount: number | null;
  feedForwardLength: number | number[] | null;
  headCount: number | number[] | null;
  headCountKv: number | number[] | null;
  keyLength: number | null;
  valueLength: number | null;
  layerNormEpsilon: number | null;
  layerNormRmsEpsilon: number | null;
  vocabSize: number | null;
  ropeDimensionCount: number | null;
  ropeFreqBase: number | null;
  ropeScalingType: string | null;
  ropeScalingFactor: number | null;
  expertCount: number | null;
  expertUsedCount: number | null;
  /** RWKV models: '4', '5', '5.1', '5.2', '6', '7'. */
  rwkvVersion: string | null;
  /** How wasmlm's decoder runs the file; null for other architectures (RWKV, or ones it does not run). */
  decoder: DecoderFeatures | { error: { code: ErrorCode; message: string; offset: number | null } } | null;
}

/** A decoder architecture's settings as wasmlm resolves them from the file (llama.cpp's reading of it). */
export interface DecoderFeatures {
  /** general.architecture: 'llama' | 'qwen2' | 'qwen3' | 'gemma2' | 'gemma3' | 'phi3' | 'smollm3' | 'olmo2' | 'granite'. */
  architecture: string;
  /** The model families whose files have it, e.g. 'Qwen2, Qwen2.5, Qwen2.5-Coder, DeepSeek-R1-Distill-Qwen'. */
  families: string;
  /** Where the RMS norms sit around attention and FFN. */
  norms: 'pre' | 'pre+post' | 'post';
  qkNorm: 'none' | 'per-head' | 'all heads';
  /** RoPE layout: adjacent pairs ('normal') or halves ('neox'). */
  rope: 'normal' | 'neox';
  /** Leading dimensions of each head that RoPE rotates (< headDim: partial rotary). */
  ropeDimensions: number;
  headDim: number;
  /** The gated FFN's activation. */
  activation: 'silu' | 'gelu-tanh';
  layers: number;
  /** Positions a windowed layer attends to (0: no sliding window). */
  slidingWindow: number;
  windowedLayers: number;
  /** Layers without RoPE (SmolLM3). */
  noRopeLayers: number;
  fusedQkv: boolean;
  fusedGateUp: boolean;
  qkvBias: boolean;
  /** No output.weight: the token embeddings are the output head. */
  tiedOutput: boolean;
  /** LongRoPE factor tensors (Phi-3 long-context models). */
  longRope: boolean;
  ropeBase: number;
  /** 1 / linear scaling factor. */
  ropeScale: number;
  ropeAttnFactor: number;
  /** Windowed layers' RoPE (Gemma 3: base 10000, unscaled); null without a window. */
  windowRopeBase: number | null;
  windowRopeScale: number | null;
  /** The query-key products' scale. */
  queryScale: number;
  /** Soft-caps cap * tanh(x / cap) of attention scores and final logits; 0: none. */
  attnSoftcap: number;
  finalSoftcap: number;
  embeddingScale: number;
  residualScale: number;
  logitScale: number;
  /** F16 KV cache bytes per position: layers that keep every position, and windowed layers, which keep at most ringPositions. */
  kvCacheF16: { bytesPerPosition: number; windowedBytesPerPosition: number; ringPositions: number };
}

export interface SplitSummary {
  /** 0-based index of this part. */
  no: number | null;
  count: number | null;
  tensorsCount: number | null;
}

export interface InspectResult {
  format: ModelFormat;
  version: number;
  endianness: 'little' | 'big';
  alignment: number;
  dataOffset: number;
  /** null when unknown (a stream without a length, left after a GGUF header). */
  fileSize: number | null;
  trailingBytes: number;
  metadata: Record<string, MetadataValue>;
  metadataTypes: Record<string, MetadataTypeName>;
  tensors: TensorInfo[];
  /** Elements over all tensors; a BigInt only past 2^53. */
  parameterCount: number | bigint;
  bytesByType: Record<string, number>;
  tensorCountByType: Record<string, number>;
  tokenizer: TokenizerSummary;
  architecture: ArchitectureSummary;
  split: SplitSummary | null;
  warnings: string[];
  /** PyTorch: the protocol data.pkl (or a legacy file's object pickle) was written with. */
  pickleProtocol?: number;
  /** PyTorch: how many storages the tensors share. */
  storageCount?: number;
  /** A Meta checkpoint: its params.json. */
  params?: Record<string, unknown>;
  /** A Meta checkpoint: its consolidated.NN.pth files, in order. */
  shards?: Array<{ name: string; format: 'pytorch-zip' | 'pytorch-legacy'; pickleProtocol: number; fileSize: number; tensorCount: number }>;
  /** A Meta checkpoint: the name of its tokenizer file, null without one. */
  tokenizerFile?: string | null;
}

export interface InspectOptions extends SourceOptions {
  /** A loaded module to use (default: the single-threaded build). */
  wasm?: WasmModule;
}

/**
 * Reads a model file's directory: format, metadata, tensors, and a summary.
 * Reads only the header where the source allows random access. A PyTorch
 * .pth lists torch's tensors (read by byte ranges, never executing the
 * pickle); a Meta checkpoint (its folder as a Node path, or its files as an
 * array) lists params.json and every shard's tensors.
 * Rejects with a WasmLMError.
 */
export function inspect(input: InspectInput | InspectInput[], options?: InspectOptions): Promise<InspectResult>;

export interface TensorStatsResult {
  name: string;
  type: string;
  /** ggml order: shape[0] is the row length. */
  shape: number[];
  n: number;
  /** Sum and sum of squares of the dequantized values, in double precision. */
  sum: number;
  sumsq: number;
  min: number;
  max: number;
  first32: number[];
}

/**
 * Dequantizes tensor `name` in wasm and summarizes its values, reading only
 * that tensor's bytes. Needs a source with random access. A PyTorch
 * checkpoint's tensor is summarized in torch's dtype (type) and shape; a view
 * with gaps or repeated elements is UNSUPPORTED.
 */
export function tensorStats(input: InspectInput, name: string, options?: InspectOptions): Promise<TensorStatsResult>;

export interface OpenModelOptions extends SourceOptions {
  /** > 1 uses the pthreads build (Node, or a cross-origin-isolated Worker). Default 1. */
  threads?: number;
  /** KV cache size in tokens. Default 512. */
  contextLength?: number;
  /**
   * KV cache type: 'f16' (default, as llama.cpp: half the memory of 'f32'), 'f32', or 'q8_0' (as llama.cpp's
   * `--cache-type-k q8_0 --cache-type-v q8_0`: 17/32 of F16's memory, for long contexts; LLaMA-family models whose
   * head size is a multiple of 32).
   */
  kvCache?: 'f16' | 'f32' | 'q8_0';
  /** Called at most ~10 times a second while loading, and always at the end (phase 'ready', loaded === total). */
  onProgress?: (event: LoadProgress) => void;
  /** URLs: how many times a broken download is resumed with a Range request. Default 3. */
  retries?: number;
  /** URLs: milliseconds before the n-th resume (times n). Default 200. */
  retryDelay?: number;
  /**
   * URLs: keep the downloaded file in the Cache API (keyed by URL, validated by
   * size and ETag/Last-Modified) and read it from there next time. Ignored
   * where there is no Cache API (Node). Default false.
   */
  cache?: boolean;
  /**
   * Once the header is parsed, fail with OUT_OF_MEMORY (error.bytesNeeded) if
   * the weights + KV cache + 64 MiB cannot fit in the 4 GiB wasm heap. Default true.
   */
  memoryCheck?: boolean;
  /**
   * Quantize the float (F32/F16/BF16) matrices to this type as they load,
   * e.g. 'Q8_0' or 'Q5_1': for rwkv.cpp files as rwkv.cpp's quantizer chooses
   * them (2-D matrices but the embedding and the head), for Meta checkpoints
   * every matrix whose rows hold whole blocks; the unquantized copy is never
   * held whole.
   */
  quantize?: string;
  /**
   * A tokenizer file for a model file that has no vocabulary (rwkv.cpp's
   * .bin: the RWKV World rwkv_vocab_v20230424.txt, or 20B_tokenizer.json for
   * Pile models): anything openTokenizer() reads. A Meta checkpoint's own
   * tokenizer.model is used when this is not given.
   */
  tokenizer?: unknown;
}

export interface LoadProgress {
  /** Bytes of the file read so far. */
  loaded: number;
  /** The file's size; null while unknown (a stream without a length). */
  total: number | null;
  /** Average since the load started. */
  bytesPerSecond: number;
  /** download: bytes are streaming in; build: the model and KV cache are being set up; ready: done. */
  phase: 'download' | 'build' | 'ready';
  /** Where the bytes come from. */
  source: 'network' | 'cache' | 'file' | 'memory' | 'stream';
}

/**
 * Deletes model files cached by openModel({cache: true}): the one of `url`, or
 * all. Resolves to true if something was deleted (false without a Cache API).
 */
export function clearCache(url?: string | URL): Promise<boolean>;

/** A model's or tokenizer file's tokenizer (SentencePiece BPE or unigram, byte-level BPE), as llama.cpp tokenizes. */
export declare class Tokenizer {
  readonly nVocab: number;
  readonly bos: number;
  readonly eos: number;
  /** Token ids of text; BOS by the model's default unless addBos is given. */
  encode(text: string, options?: { addBos?: boolean; parseSpecial?: boolean }): number[];
  /** Text of ids; invalid UTF-8 (e.g. half a character) becomes U+FFFD. */
  decode(ids: ArrayLike<number>, options?: { renderSpecial?: boolean }): string;
  /** The raw UTF-8 bytes of ids (may end inside a character). */
  decodeBytes(ids: ArrayLike<number>, options?: { renderSpecial?: boolean }): Uint8Array;
  dispose(): void;
}

export interface OpenTokenizerOptions extends InspectOptions {
  /**
   * tiktoken files: the special tokens after the ranks. Default: LLaMA 3's 256
   * (<|begin_of_text|>, <|end_of_text|>, ..., <|eot_id|>, reserved) right after
   * the ranks; false: none; a number: LLaMA 3's from that id (torchtune uses
   * 128000); or exact [text, id] pairs. Ids between the ranks and the specials
   * become unused "[PAD<id>]" tokens.
   */
  tiktokenSpecialTokens?: false | number | Array<[string, number]>;
}

/**
 * The tokenizer of a model file (reading only its header), or of a tokenizer
 * file recognized by its content: a SentencePiece tokenizer.model, a Hugging
 * Face tokenizer.json (byte-level BPE with a pre-tokenizer llama.cpp knows) or
 * a tiktoken rank file (LLaMA 3's split regex), read whole (at most 256 MiB).
 * Rejects with a WasmLMError.
 */
export function openTokenizer(input: InspectInput, options?: OpenTokenizerOptions): Promise<Tokenizer>;

/**
 * A loaded model (LLaMA family with its KV cache, or RWKV with its recurrent
 * state): one sequence. Its methods are synchronous: while a generate() holds
 * it (until it ends, is broken out of or aborted), every other call, another
 * generation included, throws BUSY. Bad arguments throw BAD_OPTION.
 */
export interface ModelSession {
  /** The model's tokenizer. */
  readonly tokenizer: Tokenizer;
  readonly nVocab: number;
  readonly threads: number;
  /** general.architecture of a decoder ('llama', 'qwen2', 'qwen3', 'gemma2', 'gemma3', 'phi3', ...), or 'rwkv'. */
  readonly architecture: string;
  /** Tokens evaluated since the last reset(). */
  readonly nPast: number;
  /**
   * The file's summary as inspect() gives it, its tensors as stored (quantized
   * on load: their new type and size), what quantize-on-load did, and memory in use.
   */
  describe(): InspectResult & {
    quantization: QuantizationReport | null;
    memory: { weightBytes: number; kvCacheBytes: number; wasmHeapBytes: number };
    /**
     * How many weight matrices were repacked on load into row quads (4 rows
     * interleaved, as llama.cpp's repacked CPU types; same results, faster
     * decoding): Q4_0, Q4_K and Q5_K matrices where the engine has relaxed SIMD's dot-add as
     * one instruction (x86 with AVX-VNNI, ARM with the dot product); else 0.
     */
    rowQuads: number;
  };
  /** Evaluates ids after those already seen; returns a copy of the logits after the last one. Throws WasmLMError. */
  eval(ids: ArrayLike<number>, options?: { logits?: true }): Float32Array;
  /** The same without copying the logits out (sample() still reads them in the engine). */
  eval(ids: ArrayLike<number>, options: { logits: false }): undefined;
  /** A copy of the logits after the last evaluated token; null before any eval(). */
  logits(): Float32Array | null;
  /**
   * The next token from the last eval()'s logits with llama.cpp's sampler chain
   * (penalties, top-k, top-p, min-p, temperature; greedy when temperature <= 0),
   * seeded; records it for the penalties. Options are read on the first call
   * after resetSampler().
   */
  sample(options?: SamplingOptions): number;
  resetSampler(): void;
  /** Clears the KV cache and the sampler. */
  reset(): void;
  /** The context length the session was built with; Infinity for RWKV (no limit). */
  readonly contextLength: number;
  /**
   * Streams generated text; the prompt's prefix already in the context (an
   * earlier turn, a loaded state) is reused, not evaluated again. Yields pieces whose text is
   * always whole UTF-8 (stop strings and end-of-generation tokens are never
   * shown), returns the whole result. Rejects with a WasmLMError (ABORTED on
   * abort).
   */
  generate(prompt: string | ArrayLike<number>, options?: GenerateOptions): AsyncGenerator<GeneratedPiece, Completion, void>;
  /** generate() run to the end. */
  complete(prompt: string | ArrayLike<number>, options?: GenerateOptions): Promise<Completion>;
  /** The token ids in the context. */
  readonly tokens: number[];
  /** The context (KV cache, last logits, ids), to restore with loadState(). */
  saveState(): ModelState;
  /**
   * Restores a saveState() of the same model and KV cache type. A state of
   * another model, an altered or cut blob, a token list that disagrees with it
   * (BAD_FORMAT / TRUNCATED) or one longer than the context (TOO_LARGE) leaves
   * the session as it was.
   */
  loadState(state: ModelState): void;
  /** Frees the model; later calls throw DISPOSED. */
  dispose(): void;
}

/** A saved context: structured-cloneable (postMessage, IndexedDB). */
export interface ModelState {
  format: 'wasmlm-state-2';
  tokens: number[];
  kv: Uint8Array;
}

export interface GenerateOptions extends SamplingOptions {
  /**
   * Tokens to generate at most: a non-negative integer (default 256; 0
   * evaluates the prompt only) or Infinity; the context length also ends generation.
   */
  maxTokens?: number;
  /** Generation ends before the first of these strings; it is not shown. */
  stop?: string | string[];
  /** Go on past EOS and end-of-turn tokens (default false). */
  ignoreEos?: boolean;
  signal?: AbortSignal;
  /** Text prompts: prepend BOS (default: as the model says). */
  addBos?: boolean;
  /** Text prompts: match special tokens like <|eot_id|> in the text (default false). */
  parseSpecial?: boolean;
}

export interface ChatOptions extends GenerateOptions {
  /** The template's enable_thinking (Qwen3: false renders an empty <think></think>, so the model answers directly). */
  enableThinking?: boolean;
  /** More variables for the template, as apply_chat_template's keyword arguments (e.g. { enable_thinking: false }). */
  chatTemplateKwargs?: Record<string, unknown>;
}

export interface GeneratedPiece {
  text: string;
  /** The ids behind this piece (a piece may wait for several tokens). */
  tokens: number[];
}

export interface Completion {
  text: string;
  tokens: number[];
  promptTokens: number;
  /** Prompt tokens that were already in the context and not evaluated again. */
  cachedPromptTokens: number;
  /** eos: an end-of-generation token; stop: a stop string; length: maxTokens or a full context; null: aborted. */
  finishReason: 'eos' | 'stop' | 'length' | null;
  timings: { promptMs: number; decodeMs: number; promptTokensPerSecond: number | null; decodeTokensPerSecond: number | null };
}

export interface SamplingOptions {
  temperature?: number;
  topK?: number;
  topP?: number;
  minP?: number;
  repeatPenalty?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  penaltyLastN?: number;
  /** An integer in [0, 2^53) or a BigInt in [0, 2^64). Default: random. */
  seed?: number | bigint;
  /** Added to the logits first, per token id: [id, bias] pairs, a Map or an object {id: bias}; -Infinity bans a token. */
  logitBias?: Array<[number, number]> | Map<number, number> | Record<number, number>;
}

/**
 * Streams a model file into wasm memory (one allocation per tensor) and
 * builds the model. A URL is read as one streaming GET (resumed with Range
 * requests if the connection drops), a Blob in slices, a Node path with file
 * reads: the JS heap holds a few MB of the file at most. Runs in the calling
 * thread: use it from a Worker in browsers. Rejects with a WasmLMError
 * (ABORTED when `signal` aborts; the partly loaded model is freed).
 * A split GGUF (llama.cpp's gguf-split: "-00001-of-0000N.gguf") is an array
 * of all its shards, read one after the other (ordered by their names).
 * A Meta LLaMA checkpoint is its folder (a Node path) or its files (params.json,
 * consolidated.NN.pth, tokenizer.model, in any order): each shard's directory
 * is read by byte ranges, then the tensors stream in (shards joined, quantized
 * as they arrive with `quantize`). A lone .pth is a BAD_FORMAT error.
 */
export function openModel(input: InspectInput | InspectInput[], options?: OpenModelOptions): Promise<ModelSession>;

export function summarizeModel(
  file: Omit<RawModelDirectory, 'metadata' | 'fileSize'> & { metadata: Record<string, MetadataValue>; fileSize: number | null },
): InspectResult;
export function parameterCount(tensors: Pick<TensorInfo, 'shape'>[]): number | bigint;
/** RWKV version from a GGUF architecture name ('rwkv6') or rwkv.cpp tensor names. */
export function rwkvVersion(architecture: string, tensors: Pick<TensorInfo, 'name' | 'shape'>[]): string | null;

export interface LoadModelOptions extends Omit<OpenModelOptions, 'threads' | 'fetch'> {
  /**
   * 'auto' (default): the pthreads build with up to 4 threads when the page is
   * cross-origin isolated (and in Node), else the single-threaded build.
   */
  threads?: number | 'auto';
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | string;
  content: string;
}

export interface LanguageModelInfo {
  architecture: Record<string, unknown> | null;
  tokenizer: Record<string, unknown> | null;
  parameterCount: number;
  bytesByType: Record<string, number>;
  tensorCountByType: Record<string, number>;
  fileSize: number | null;
  /** tokenizer.chat_template, when the model has one (chat() needs it). */
  chatTemplate: string | null;
  contextLength: number;
  kvCache: 'f16' | 'f32' | 'q8_0';
  threads: number;
  build: 'pthreads' | 'single-threaded';
  /** 'relaxed': the relaxed-SIMD build (its 8-bit dot product in the fastest kernels), where the engine has it; else 'simd128'. */
  simd: 'relaxed' | 'simd128';
  memory: { weightBytes: number; kvCacheBytes: number; wasmHeapBytes: number };
  /** Weight matrices repacked on load into row quads (see the session's describe()). */
  rowQuads: number;
  /** What the `quantize` option did (null without it). */
  quantization: QuantizationReport | null;
  nVocab: number;
}

/**
 * Quantize-on-load's work: each float matrix it touched and the type it got —
 * the requested one, or where the rows cannot hold its blocks llama-quantize's
 * fallback (Q4_K -> Q5_0, Q5_K -> Q5_1, Q6_K -> Q8_0, TQ1_0/TQ2_0 -> Q4_0),
 * else F16 for F32 tensors. Tensors not listed kept their type.
 */
export interface QuantizationReport {
  requested: string;
  tensors: { name: string; from: string; to: string }[];
}

/**
 * A model running in its own Web Worker (worker_thread in Node). Every method
 * crosses to the worker; calls run one at a time in the order they were made
 * (each gives what it gives alone). An aborted signal rejects a call with
 * ABORTED at once; bad arguments reject with BAD_OPTION before anything runs.
 */
export declare class LanguageModel {
  readonly info: LanguageModelInfo;
  /**
   * How many times a crashed worker (a wasm trap) was replaced: the request
   * in flight fails with INTERNAL, a new worker loads the model again from its
   * path, URL or Blob, and later requests go there. A model loaded from
   * bytes cannot be reloaded: later requests fail, asking for loadModel() again.
   */
  readonly restarts: number;
  tokenize(text: string, options?: { addBos?: boolean; parseSpecial?: boolean }): Promise<number[]>;
  detokenize(ids: ArrayLike<number>, options?: { renderSpecial?: boolean }): Promise<string>;
  /** Streams text pieces; breaking out of the loop or aborting the signal stops the worker's generation. */
  generate(prompt: string | ArrayLike<number>, options?: GenerateOptions): AsyncIterableIterator<GeneratedPiece> & AsyncIterator<GeneratedPiece, Completion>;
  complete(prompt: string | ArrayLike<number>, options?: GenerateOptions): Promise<Completion>;
  /**
   * The messages rendered with the model's chat template (@huggingface/jinja,
   * as transformers' apply_chat_template with add_generation_prompt), then
   * generate(). Generation ends at the model's end-of-turn tokens.
   */
  chat(messages: ChatMessage[], options?: ChatOptions): AsyncIterableIterator<GeneratedPiece> & AsyncIterator<GeneratedPiece, Completion>;
  reset(): Promise<void>;
  /** The context (KV cache, last logits, ids): generate() then reuses it as a prompt prefix. */
  saveState(): Promise<ModelState>;
  loadState(state: ModelState): Promise<void>;
  /**
   * Frees the model and ends the worker: pending calls reject with DISPOSED,
   * and so do later ones; a worker stuck in a long step is ended after 1 s;
   * a second dispose() resolves.
   */
  dispose(): Promise<void>;
}

/**
 * Loads a model into a new Web Worker (a worker_thread in Node): streaming,
 * with progress and abort as openModel(). Rejects with a WasmLMError.
 */
export function loadModel(
  source: string | URL | Blob | ArrayBuffer | ArrayBufferView | Array<string | URL | Blob>,
  options?: LoadModelOptions,
): Promise<LanguageModel>;
