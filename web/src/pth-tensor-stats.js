// tensorStats() of a PyTorch checkpoint's tensor: its values are plain
// numbers of torch's dtype (no wasm type involved), read in JS from the
// tensor's bytes only. A view is read when its elements fill their span (a
// permutation such as a transpose); first32 follows the logical order.
import { WasmLMError, throwIfAborted } from './errors.js';

const CHUNK = 4 * 1024 * 1024;
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

function halfToFloat(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 31;
  const fraction = h & 1023;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 31) return fraction ? NaN : sign * Infinity;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

/** Element readers of the unquantized types: (DataView, byte offset, little-endian) -> number. */
export const PLAIN = {
  F32: (v, at, le) => v.getFloat32(at, le),
  F64: (v, at, le) => v.getFloat64(at, le),
  F16: (v, at, le) => halfToFloat(v.getUint16(at, le)),
  BF16: (v, at, le) => ((u32[0] = v.getUint16(at, le) << 16), f32[0]),
  I8: (v, at) => v.getInt8(at),
  I16: (v, at, le) => v.getInt16(at, le),
  I32: (v, at, le) => v.getInt32(at, le),
  I64: (v, at, le) => Number(v.getBigInt64(at, le)),
  U8: (v, at) => v.getUint8(at),
  BOOL: (v, at) => v.getUint8(at),
};
export const PLAIN_SIZE = { F32: 4, F64: 8, F16: 2, BF16: 2, I8: 1, I16: 2, I32: 4, I64: 8, U8: 1, BOOL: 1 };

/** The element size of a PyTorch tensor we can read whole; throws UNSUPPORTED for views with gaps or repeats. */
export function pthElementSize(tensor) {
  const size = PLAIN_SIZE[tensor.dtype];
  if (!size) throw new WasmLMError('UNSUPPORTED', `no values for dtype ${tensor.dtype}`);
  const numel = tensor.shape.reduce((a, b) => a * b, 1);
  const span = tensor.shape.reduce((sum, n, i) => sum + (n - 1) * tensor.stride[i], 1);
  if (numel > 0 && (span !== numel || tensor.stride.some((s) => s < 1))) {
    throw new WasmLMError('UNSUPPORTED', `tensor '${tensor.name}' is a view with gaps or repeats`);
  }
  return size;
}

/** Calls visit(value) for each value of a (permuted) PyTorch tensor, in storage order. */
export async function forEachPthValue(source, tensor, signal, visit) {
  const size = pthElementSize(tensor);
  const read = PLAIN[tensor.dtype];
  const step = Math.floor(CHUNK / size) * size;
  for (let at = 0; at < tensor.nbytes; at += step) {
    throwIfAborted(signal);
    const want = Math.min(step, tensor.nbytes - at);
    const bytes = await source.read(tensor.offset + at, want);
    if (bytes.length < want) throw new WasmLMError('TRUNCATED', `the file ends inside tensor '${tensor.name}'`, { offset: tensor.offset + at + bytes.length });
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
    for (let i = 0; i < bytes.length; i += size) visit(read(view, i, true));
  }
}

/** {name, type, shape, n, sum, sumsq, min, max, first32} of one tensor (torch's shape, outermost first). */
export async function pthTensorStats(source, tensor, { signal } = {}) {
  const size = pthElementSize(tensor);
  const stats = { name: tensor.name, type: tensor.dtype, shape: tensor.shape, n: 0, sum: 0, sumsq: 0, min: Infinity, max: -Infinity };
  await forEachPthValue(source, tensor, signal, (v) => {
    stats.n++;
    stats.sum += v;
    stats.sumsq += v * v;
    if (v < stats.min) stats.min = v;
    if (v > stats.max) stats.max = v;
  });
  // The first 32 in logical (row-major) order: element k's offset from its indices and the strides.
  const first32 = [];
  const read = PLAIN[tensor.dtype];
  for (let k = 0; k < Math.min(32, stats.n); k++) {
    let rest = k;
    let element = 0;
    for (let d = tensor.shape.length - 1; d >= 0; d--) {
      element += (rest % tensor.shape[d]) * tensor.stride[d];
      rest = Math.floor(rest / tensor.shape[d]);
    }
    const bytes = await source.read(tensor.offset + element * size, size);
    first32.push(read(new DataView(bytes.buffer, bytes.byteOffset, size), 0, true));
  }
  return { ...stats, first32 };
}
