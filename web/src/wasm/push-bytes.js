// The one way bytes enter the wasm heap: a binding (Parser, Model,
// TensorStats) hands out a staging buffer, JS copies into it, push(n)
// consumes it. Large inputs go in pieces, so staging stays bounded.
import { throwIfBindingError } from '../errors.js';

const MAX_PIECE = 16 * 1024 * 1024;

export function pushBytes(wasm, target, bytes, { whole = false } = {}) {
  const step = whole ? Math.max(1, bytes.length) : MAX_PIECE; // whole: the target takes one push
  for (let at = 0; at < bytes.length; at += step) {
    const piece = bytes.subarray(at, Math.min(at + step, bytes.length));
    const ptr = target.staging(piece.length) >>> 0;
    wasm.HEAPU8.set(piece, ptr); // HEAPU8 read after staging(): the heap may have grown
    throwIfBindingError(target.push(piece.length));
  }
}
