// Text <-> token ids with a model file's own vocabulary (SentencePiece or
// byte-level BPE from GGUF metadata), as llama.cpp tokenizes.
import { WasmLMError, throwIfBindingError } from './errors.js';
import { readModelDirectory } from './parse/read-model-directory.js';
import { openByteSource } from './sources/byte-source.js';
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
    const ids = this.#live().encode(String(text), addBos, parseSpecial);
    if (!(ids instanceof Int32Array)) throwIfBindingError(ids);
    return Array.from(ids);
  }

  /** The UTF-8 bytes of ids (may end inside a character). */
  decodeBytes(ids, { renderSpecial = false } = {}) {
    const bytes = this.#live().decode(Int32Array.from(ids), renderSpecial);
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

  #live() {
    if (!this.#binding) throw new WasmLMError('ABORTED', 'the tokenizer was disposed');
    return this.#binding;
  }
}

/**
 * The tokenizer of a model file, reading only its header.
 * @param {unknown} input anything inspect() accepts
 */
export async function openTokenizer(input, { signal, fetch, wasm } = {}) {
  const module = wasm ?? (await loadWasmModule());
  const source = await openByteSource(input, { signal, fetch });
  try {
    return await readModelDirectory(module, source, { signal, onDirectory: (parser) => new Tokenizer(parser.tokenizer()) });
  } finally {
    await source.close?.();
  }
}
