// A value histogram of one tensor, for the model viewer's worker. Reads only
// that tensor's bytes: tensorStats() gives the exact count, min, max and
// moments; a second pass over the same bytes puts each value in a bin.
// Plain types are decoded here; quantized blocks are dequantized in wasm (the
// Dequantize binding), a chunk of whole blocks at a time: every value counts.
import { WasmLMError, throwIfAborted } from '../src/errors.js';
import { tensorStats } from '../src/tensor-stats.js';
import { openByteSource } from '../src/sources/byte-source.js';
import { loadWasmModule } from '../src/wasm/load-module.js';
import { pushBytes } from '../src/wasm/push-bytes.js';

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

// Element readers for the unquantized types: (DataView, byte offset, little-endian) -> number.
const PLAIN = {
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
const PLAIN_SIZE = { F32: 4, F64: 8, F16: 2, BF16: 2, I8: 1, I16: 2, I32: 4, I64: 8, U8: 1, BOOL: 1 };

/**
 * A PyTorch tensor (torch's dtype, shape, stride): its values, read in JS
 * (no wasm type involved). A view is read when its elements fill their span
 * (a permutation, like a transpose): the histogram does not depend on order.
 */
function pthTensorInfo(tensor) {
  const typeSize = PLAIN_SIZE[tensor.dtype];
  if (!typeSize) throw new WasmLMError('UNSUPPORTED', `no histogram for dtype ${tensor.dtype}`);
  const numel = tensor.shape.reduce((a, b) => a * b, 1);
  const span = tensor.shape.reduce((sum, n, i) => sum + (n - 1) * tensor.stride[i], 1);
  if (numel > 0 && (span !== numel || tensor.stride.some((s) => s < 1))) {
    throw new WasmLMError('UNSUPPORTED', `tensor '${tensor.name}' is a view with gaps or repeats: no histogram`);
  }
  return { name: tensor.dtype, typeSize };
}

async function plainStats(source, tensor, info, littleEndian, signal) {
  const stats = { name: tensor.name, type: tensor.type, shape: tensor.shape, n: 0, sum: 0, sumsq: 0, min: Infinity, max: -Infinity };
  await forEachValue(null, source, tensor, info, littleEndian, signal, (v) => {
    stats.n++;
    if (!Number.isFinite(v)) return;
    stats.sum += v;
    stats.sumsq += v * v;
    stats.min = Math.min(stats.min, v);
    stats.max = Math.max(stats.max, v);
  });
  return stats;
}

/** Calls `visit(value)` for each value of the tensor; returns how many. */
async function forEachValue(wasm, source, tensor, info, littleEndian, signal, visit) {
  const read = PLAIN[info.name];
  // Quantized chunks expand to floats (Q4_K: 7x): read them smaller.
  const step = Math.max(1, Math.floor((read ? CHUNK : CHUNK / 4) / info.typeSize)) * info.typeSize;
  let visited = 0;
  for (let at = 0; at < tensor.nbytes; at += step) {
    throwIfAborted(signal);
    const bytes = await source.read(tensor.offset + at, Math.min(step, tensor.nbytes - at));
    if (bytes.length < Math.min(step, tensor.nbytes - at))
      throw new WasmLMError('TRUNCATED', `the file ends inside tensor '${tensor.name}'`, { offset: tensor.offset + at + bytes.length });
    if (read) {
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
      for (let i = 0; i < bytes.length; i += info.typeSize) visit(read(view, i, littleEndian));
      visited += bytes.length / info.typeSize;
      continue;
    }
    const dequantizer = new wasm.Dequantize(info.id);
    try {
      pushBytes(wasm, { staging: (n) => dequantizer.staging(n), push: () => null }, bytes, { whole: true });
      const values = dequantizer.dequantize(bytes.length);
      if (!(values instanceof Float32Array)) throw new WasmLMError(values.code, values.message);
      for (const value of values) visit(value);
      visited += values.length;
    } finally {
      dequantizer.delete();
    }
  }
  return visited;
}

/**
 * @param {unknown} input a File/Blob or URL (with Range support)
 * @param {{name: string, typeId: number, offset: number, nbytes: number}} tensor from inspect()
 * @param {{bins?: number, littleEndian?: boolean, signal?: AbortSignal}} [options]
 * @returns {Promise<{name, type, shape, n, sum, sumsq, min, max, lo, hi, counts: number[], nonFinite: number, counted: number, sampled: boolean}>}
 */
export async function tensorHistogram(input, tensor, { bins = 64, littleEndian = true, signal } = {}) {
  const pytorch = tensor.dtype != null;
  const stats = pytorch ? null : await tensorStats(input, tensor.name, { signal });
  const wasm = await loadWasmModule();
  const info = pytorch ? pthTensorInfo(tensor) : wasm.typeTable().find((t) => t.id === tensor.typeId);
  if (!info) throw new WasmLMError('UNSUPPORTED', `no histogram for tensor type ${tensor.type}`);
  const source = await openByteSource(input, { signal });
  try {
    const all = stats ?? (await plainStats(source, tensor, info, littleEndian, signal));
    let lo = all.min;
    let hi = all.max;
    if (!Number.isFinite(lo) || !Number.isFinite(hi)) { // infinities: bin the finite values only
      [lo, hi] = [Infinity, -Infinity];
      await forEachValue(wasm, source, tensor, info, littleEndian, signal, (v) => {
        if (Number.isFinite(v)) [lo, hi] = [Math.min(lo, v), Math.max(hi, v)];
      });
    }
    const counts = new Array(bins).fill(0);
    const scale = hi > lo ? bins / (hi - lo) : 0;
    let nonFinite = 0;
    const counted = await forEachValue(wasm, source, tensor, info, littleEndian, signal, (v) => {
      if (Number.isFinite(v)) counts[Math.min(bins - 1, Math.floor((v - lo) * scale))]++;
      else nonFinite++;
    });
    return { ...all, lo, hi, counts, nonFinite, counted, sampled: counted < all.n };
  } finally {
    await source.close?.();
  }
}
