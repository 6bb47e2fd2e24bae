// A value histogram of one tensor, for the model viewer's worker. Reads only
// that tensor's bytes: tensorStats() gives the exact count, min, max and
// moments; a second pass over the same bytes puts each value in a bin.
// Plain types (PyTorch's too) are decoded in JS; quantized blocks are
// dequantized in wasm (the Dequantize binding), a chunk of whole blocks at a
// time: every value counts.
import { WasmLMError, throwIfAborted } from '../src/errors.js';
import { PLAIN, pthElementSize } from '../src/pth-tensor-stats.js';
import { tensorStats } from '../src/tensor-stats.js';
import { openByteSource } from '../src/sources/byte-source.js';
import { loadWasmModule } from '../src/wasm/load-module.js';
import { pushBytes } from '../src/wasm/push-bytes.js';

const CHUNK = 4 * 1024 * 1024;

/** A PyTorch tensor: its dtype's plain values (pth-tensor-stats.js). */
function pthTensorInfo(tensor) {
  return { name: tensor.dtype, typeSize: pthElementSize(tensor) };
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
  const stats = await tensorStats(input, tensor.name, { signal });
  const wasm = await loadWasmModule();
  const info = pytorch ? pthTensorInfo(tensor) : wasm.typeTable().find((t) => t.id === tensor.typeId);
  if (!info) throw new WasmLMError('UNSUPPORTED', `no histogram for tensor type ${tensor.type}`);
  const source = await openByteSource(input, { signal });
  try {
    const all = stats;
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
