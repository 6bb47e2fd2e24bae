// tensorStats(): dequantizes one tensor of a model file in wasm and
// summarizes it (count, sum and sum of squares in double precision, min, max,
// the first 32 values), reading only that tensor's bytes; a PyTorch
// checkpoint's tensor in torch's dtype and shape (pth-tensor-stats.js).
import { WasmLMError, throwIfAborted, throwIfBindingError } from './errors.js';
import { readModelDirectory } from './parse/read-model-directory.js';
import { looksLikePth, readPthDirectory } from './parse/read-pth-directory.js';
import { pthTensorStats } from './pth-tensor-stats.js';
import { openByteSource } from './sources/byte-source.js';
import { loadWasmModule } from './wasm/load-module.js';
import { pushBytes } from './wasm/push-bytes.js';

const CHUNK = 8 * 1024 * 1024;

/**
 * @param {unknown} input anything inspect() accepts that allows random access
 * @param {string} name tensor name
 * @param {{signal?: AbortSignal, fetch?: typeof fetch, wasm?: object}} [options]
 */
export async function tensorStats(input, name, { signal, fetch, wasm } = {}) {
  const module = wasm ?? (await loadWasmModule());
  const source = await openByteSource(input, { signal, fetch });
  try {
    if (typeof source.read !== 'function')
      throw new WasmLMError('UNSUPPORTED', 'reading one tensor needs a source with random access (a file, Blob, bytes or a server with Range support)');
    if (source.size >= 8 && looksLikePth(await source.read(0, 8))) {
      const { tensors } = await readPthDirectory(module, source, { signal });
      const tensor = tensors.find((t) => t.name === name);
      if (!tensor) throw new WasmLMError('BAD_FORMAT', `no tensor named '${name}' in the checkpoint`);
      return await pthTensorStats(source, tensor, { signal });
    }
    const directory = await readModelDirectory(module, source, { signal });
    const tensor = directory.tensors.find((t) => t.name === name);
    if (!tensor) throw new WasmLMError('BAD_FORMAT', `no tensor named '${name}' in the file`);
    const n = tensor.shape.reduce((a, b) => a * b, 1);
    const stats = new module.TensorStats(tensor.typeId, n);
    try {
      throwIfBindingError(stats.error());
      for (let at = 0; at < tensor.nbytes; at += CHUNK) {
        throwIfAborted(signal);
        const bytes = await source.read(tensor.offset + at, Math.min(CHUNK, tensor.nbytes - at));
        if (bytes.length === 0) throw new WasmLMError('TRUNCATED', `the file ends inside tensor '${name}'`, { offset: tensor.offset + at });
        pushBytes(module, stats, bytes);
      }
      const r = stats.result();
      return { name, type: tensor.type, shape: tensor.shape, n: r.n, sum: r.sum, sumsq: r.sumsq, min: r.min, max: r.max, first32: Array.from(r.first32) };
    } finally {
      stats.delete();
    }
  } finally {
    await source.close?.();
  }
}
