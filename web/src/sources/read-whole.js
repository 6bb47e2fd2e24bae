// A small file read whole (a tokenizer file, a checkpoint's params.json)
// from any ByteSource, refused past a size limit instead of allocated.
import { WasmLMError, throwIfAborted } from '../errors.js';

/**
 * The whole file, in one Uint8Array of this realm (Embind checks instanceof).
 * @param {{size?: number, read?: Function, stream?: Function}} source
 * @param {{limit: number, what: string, signal?: AbortSignal}} options what: names the file in the TOO_LARGE error
 */
export async function readWhole(source, { limit, what, signal }) {
  const tooLarge = (size) => new WasmLMError('TOO_LARGE', `${what} of ${size} bytes is larger than the ${limit}-byte limit`);
  if (source.size !== undefined && source.size > limit) throw tooLarge(source.size);
  const chunks = [];
  let length = 0;
  const add = (chunk) => {
    length += chunk.length;
    if (length > limit) throw tooLarge(length);
    chunks.push(chunk);
  };
  if (typeof source.read === 'function') {
    const step = 16 * 1024 * 1024;
    for (;;) {
      throwIfAborted(signal);
      const want = source.size === undefined ? step : Math.min(step, source.size - length);
      if (want <= 0) break;
      const chunk = await source.read(length, want);
      if (chunk.length === 0) break;
      add(chunk);
      if (chunk.length < want) break;
    }
  } else {
    const reader = source.stream().getReader();
    try {
      for (;;) {
        throwIfAborted(signal);
        const next = await reader.read();
        if (next.done) break;
        add(next.value);
      }
    } finally {
      reader.releaseLock();
    }
  }
  return concatBytes(chunks, length);
}

/** The chunks in one new Uint8Array of `length` bytes. */
export function concatBytes(chunks, length) {
  const out = new Uint8Array(length);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
