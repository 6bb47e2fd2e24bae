// Drives the wasm Parser over a ByteSource until the tensor directory is
// known, reading as little of the file as the source allows.
import { throwIfAborted, throwIfBindingError } from '../errors.js';
import { pushBytes } from '../wasm/push-bytes.js';

const KiB = 1024;
const MiB = 1024 * KiB;
/** Header reads start at FIRST_READ and double while the header goes on. */
const FIRST_READ = 64 * KiB;
/** After skipping a tensor's data, the next record header is small. */
const READ_AFTER_SKIP = 16 * KiB;
/** Record formats: tensor data up to this size is read through, not skipped (one request instead of two). */
const READ_THROUGH = 64 * KiB;
const MAX_READ = 16 * MiB;

/**
 * Returns `parser.describe()` for the file behind `source` (or what
 * `onDirectory(parser)` returns, called before the parser is freed).
 * Random-access sources skip tensor data (record formats read small tensors
 * through: one request instead of a seek each). Stream sources are pushed
 * through until the directory is complete: right after the header for GGUF,
 * the whole file for record formats (rwkv.cpp .bin, GGML/GGMF/GGJT).
 */
export async function readModelDirectory(wasm, source, { signal, onDirectory } = {}) {
  const parser = new wasm.Parser(source.size ?? 0);
  try {
    if (typeof source.read === 'function') await parseByRandomAccess(wasm, parser, source, signal);
    else await parseStream(wasm, parser, source.stream(), signal);
    // onDirectory(parser) may use the parser before it is freed.
    return onDirectory ? onDirectory(parser) : parser.describe();
  } finally {
    parser.delete();
  }
}

async function parseByRandomAccess(wasm, parser, source, signal) {
  let step = FIRST_READ;
  for (;;) {
    throwIfAborted(signal);
    const need = parser.need();
    if (need.phase === 'done') return;
    const inData = need.phase === 'data';
    if (inData && (parser.directoryComplete() || need.length > READ_THROUGH)) {
      throwIfBindingError(parser.skipData());
      step = READ_AFTER_SKIP;
      continue;
    }
    // A header unit, or a small tensor plus the record header after it.
    const wanted = inData ? need.length + READ_AFTER_SKIP : need.length;
    const left = source.size === undefined ? Infinity : source.size - need.offset;
    const length = Math.min(Math.max(wanted, step), left);
    const bytes = length > 0 ? await source.read(need.offset, length) : new Uint8Array(0);
    throwIfAborted(signal);
    if (bytes.length === 0) {
      throwIfBindingError(parser.finish());
      return;
    }
    pushBytes(wasm, parser, bytes);
    step = Math.min(step * 2, MAX_READ);
  }
}

async function parseStream(wasm, parser, stream, signal) {
  const reader = stream.getReader();
  let ended = false;
  try {
    for (;;) {
      throwIfAborted(signal);
      const { done, value } = await reader.read();
      if (done) {
        ended = true;
        break;
      }
      pushBytes(wasm, parser, value);
      if (parser.directoryComplete() || parser.need().phase === 'done') return;
    }
    throwIfBindingError(parser.finish());
  } finally {
    if (!ended) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
