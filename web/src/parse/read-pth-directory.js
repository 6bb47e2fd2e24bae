// The tensor directory of a PyTorch checkpoint (torch.save's zip format, or
// the legacy pickle format), read in wasm without executing anything. The
// zip's directory sits at the end of the file, so this asks the source for
// the byte ranges the reader needs (a few: the end, the central directory,
// data.pkl, one small header per storage) instead of streaming it.
import { WasmLMError, throwIfAborted, throwIfBindingError } from '../errors.js';

/** Reads at least this much per request: neighbouring small reads come in one. */
const MIN_READ = 64 * 1024;

/** PyTorch: a zip ("PK\3\4") or a legacy pickle (PROTO 2..5). */
export function looksLikePth(head) {
  return (head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04)
    || (head[0] === 0x80 && head[1] >= 2 && head[1] <= 5);
}

/**
 * @param {object} wasm the module
 * @param {{size?: number, read?: (offset: number, length: number) => Promise<Uint8Array>}} source
 */
export async function readPthDirectory(wasm, source, { signal } = {}) {
  if (typeof source.read !== 'function' || source.size == null) {
    throw new WasmLMError('UNSUPPORTED', 'a PyTorch checkpoint is read by ranges: give a file, a Blob, or a URL whose '
      + 'server supports Range requests, not a stream');
  }
  const reader = new wasm.PthInspect(source.size);
  try {
    const result = await readUntilDone(source, () => reader.read(), (offset, bytes) => {
      const ptr = reader.staging(bytes.length) >>> 0;
      wasm.HEAPU8.set(bytes, ptr);
      reader.add(offset, bytes.length);
    }, { signal });
    return { ...result, fileSize: source.size };
  } finally {
    reader.delete();
  }
}

/**
 * The need-bytes protocol of the range readers (PthInspect, a Model reading
 * a checkpoint shard): `step()` answers {need: {offset, length}} until it has
 * what it asks for; each range (at least MIN_READ, so neighbouring small
 * reads come in one) is read from `source` and handed to `give(offset, bytes)`.
 * Returns step()'s last answer.
 */
export async function readUntilDone(source, step, give, { signal } = {}) {
  for (;;) {
    throwIfAborted(signal);
    const result = step();
    if (result.code) throwIfBindingError(result);
    if (!result.need) return result;
    const { offset, length } = result.need;
    const bytes = await source.read(offset, Math.min(source.size - offset, Math.max(length, MIN_READ)));
    if (bytes.length < length) throw new WasmLMError('TRUNCATED', `the file ends before byte ${offset + length}`, { offset });
    give(offset, bytes);
  }
}
