// Text <-> token ids with a model file's own vocabulary (SentencePiece or
// byte-level BPE from GGUF metadata) or a tokenizer file's (SentencePiece
// .model, tiktoken), as llama.cpp tokenizes; a tokenizer.json as transformers
// does.
import { WasmLMError, throwIfAborted, throwIfBindingError } from './errors.js';
import { checkText, checkTokenIds } from './options.js';
import { readModelDirectory } from './parse/read-model-directory.js';
import { openByteSource } from './sources/byte-source.js';
import { concatBytes, readWhole } from './sources/read-whole.js';
import { loadWasmModule } from './wasm/load-module.js';

const utf8 = new TextDecoder('utf-8', { fatal: false });

export class Tokenizer {
  #binding;

  /** @internal wraps a wasm Tokenizer; use openTokenizer() or a model session's tokenizer. */
  constructor(binding) {
    const error = binding.error();
    if (error) {
      binding.delete();
      throwIfBindingError(error);
    }
    this.#binding = binding;
    this.nVocab = binding.nVocab();
    this.bos = binding.bos();
    this.eos = binding.eos();
  }

  /** Token ids of `text`; BOS by the model's default unless addBos says otherwise. */
  encode(text, { addBos = this.#live().addBosDefault(), parseSpecial = false } = {}) {
    const ids = this.#live().encode(checkText(text), Boolean(addBos), Boolean(parseSpecial));
    if (!(ids instanceof Int32Array)) throwIfBindingError(ids);
    return Array.from(ids);
  }

  /** The UTF-8 bytes of ids (may end inside a character). */
  decodeBytes(ids, { renderSpecial = false } = {}) {
    const bytes = this.#live().decode(Int32Array.from(checkTokenIds(ids, this.nVocab)), Boolean(renderSpecial));
    if (!(bytes instanceof Uint8Array)) throwIfBindingError(bytes);
    return bytes;
  }

  /** The text of ids (invalid UTF-8 becomes U+FFFD). */
  decode(ids, options) {
    return utf8.decode(this.decodeBytes(ids, options));
  }

  dispose() {
    this.#binding?.delete();
    this.#binding = null;
  }

  /** @internal the wasm tokenizer (for ModelSession.useTokenizer) */
  get binding() {
    return this.#live();
  }

  #live() {
    if (!this.#binding) throw new WasmLMError('DISPOSED', 'the tokenizer was disposed');
    return this.#binding;
  }
}

/** Bytes enough to tell the formats apart. */
const HEAD_BYTES = 64;
/** Tokenizer files are read whole; the largest real ones are ~10-20 MB. */
const MAX_TOKENIZER_FILE = 256 * 1024 * 1024;

/**
 * The tokenizer of a model file (reading only its header), or of a tokenizer
 * file: a SentencePiece tokenizer.model, a Hugging Face tokenizer.json or a
 * tiktoken rank file (recognized by content, read whole).
 * @param {unknown} input anything inspect() accepts
 * @param {{tiktokenSpecialTokens?: false | number | Array<[string, number]>}} options
 *   tiktoken files get LLaMA 3's 256 special tokens right after the ranks
 *   unless this is false (none), a number (LLaMA 3's, from that id) or
 *   [text, id] pairs.
 */
export async function openTokenizer(input, { signal, fetch, wasm, tiktokenSpecialTokens } = {}) {
  const module = wasm ?? (await loadWasmModule());
  let source = await openByteSource(input, { signal, fetch });
  try {
    const { head, rest } = await readHead(source, signal);
    source = rest;
    const format = module.tokenizerFileFormat(head);
    if (format === 'gguf' || format === 'unknown') {
      // Model files (the legacy GGML/GGJT/rwkv.cpp ones are 'unknown' here too).
      try {
        return await readModelDirectory(module, source, { signal, onDirectory: (parser) => new Tokenizer(parser.tokenizer()) });
      } catch (error) {
        if (format === 'unknown' && error instanceof WasmLMError && error.code === 'BAD_FORMAT' && error.offset === 0) {
          throw new WasmLMError('BAD_FORMAT', `${error.message}; nor a SentencePiece .model, tokenizer.json or tiktoken file`,
            { offset: 0, cause: error });
        }
        throw error;
      }
    }
    const bytes = await readWhole(source, { limit: MAX_TOKENIZER_FILE, what: 'a tokenizer file', signal });
    throwIfAborted(signal);
    return new Tokenizer(module.tokenizerFromFile(bytes, tiktokenSpecialTokens ?? null));
  } finally {
    await source.close?.();
  }
}

/**
 * The first HEAD_BYTES of a source, and a source to go on with: the same one
 * when it has random access, else one that replays what was read from its stream.
 */
async function readHead(source, signal) {
  if (typeof source.read === 'function') return { head: copyBytes(await source.read(0, HEAD_BYTES)), rest: source };
  const reader = source.stream().getReader();
  const chunks = [];
  let length = 0;
  let done = false;
  while (length < HEAD_BYTES) {
    throwIfAborted(signal);
    const next = await reader.read();
    if (next.done) {
      done = true;
      break;
    }
    chunks.push(next.value);
    length += next.value.length;
  }
  const head = concatBytes(chunks, length).subarray(0, HEAD_BYTES);
  const replay = new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(c);
      if (done) controller.close();
    },
    async pull(controller) {
      const next = await reader.read();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return { head, rest: { size: source.size, stream: () => replay, close: () => source.close?.() } };
}

function copyBytes(bytes) {
  const out = new Uint8Array(bytes.length);
  out.set(bytes);
  return out;
}
