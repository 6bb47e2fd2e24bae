// Loads a Meta LLaMA checkpoint into a wasm Model: each shard's zip
// directory and pickle are read by ranges (they are found from the end of the
// file, and torch's zip entries do not state their sizes up front), then the
// tensors' byte ranges are read in the order the Model's plan lists them and
// pushed in (quantized as they arrive when asked). The JS heap holds two
// pieces at a time.
import { WasmLMError, throwIfAborted, throwIfBindingError } from '../errors.js';
import { openByteSource } from '../sources/byte-source.js';
import { startPrefault, stopPrefault } from '../wasm/prefault.js';
import { pushBytes } from '../wasm/push-bytes.js';
import { readUntilDone } from '../parse/read-pth-directory.js';
import { checkModelFits, estimateModelMemory, reserveHeap } from './memory-check.js';
import { ProgressReporter } from './stream-load.js';
import { readParams } from './checkpoint-files.js';

const PIECE = 8 * 1024 * 1024;

/**
 * @param {object} wasm
 * @param {object} model a new wasm Model
 * @param {{params: unknown, shards: unknown[], origin: string}} checkpoint from findCheckpoint()
 * @returns {Promise<ProgressReporter>}
 */
export async function loadCheckpoint(wasm, model, checkpoint, {
  signal, fetch, onProgress, contextLength, kvCache, memoryCheck = true, quantize, threads = 1,
}) {
  const sources = [];
  try {
    const params = await readParams(checkpoint.params, { signal, fetch });
    for (const shard of checkpoint.shards) {
      const source = await openByteSource(shard, { signal, fetch });
      sources.push(source);
      if (typeof source.read !== 'function' || source.size == null) {
        throw new WasmLMError('UNSUPPORTED', 'a PyTorch checkpoint is read by ranges: give files, Blobs, or URLs whose '
          + 'server supports Range requests, not streams');
      }
      await readShardDirectory(wasm, model, source, signal);
    }
    const plan = model.planCheckpoint(params, quantize ? String(quantize) : '');
    if (plan.code) throwIfBindingError(plan);
    const total = plan.reads.reduce((sum, r) => sum + r.length, 0);
    const progress = new ProgressReporter(onProgress, { size: total, origin: checkpoint.origin });
    progress.emit('download');
    if (memoryCheck) {
      const estimate = checkpointMemory(wasm, model.describe(), { contextLength, kvCache, quantize });
      checkModelFits(wasm, estimate, { contextLength, kvCache });
      // The largest tensor's room, free again once it is stored, is the working space.
      const fresh = reserveHeap(wasm, estimate, 0, 0);
      startPrefault(wasm, fresh, threads); // pthreads build: pages faulted in ahead of the copies
    }
    const target = { staging: (n) => model.staging(n), push: (n) => model.pushCheckpoint(n) };
    const pieces = plan.reads.flatMap((r) => {
      const out = [];
      for (let at = 0; at < r.length; at += PIECE) out.push({ source: sources[r.shard], offset: r.offset + at, length: Math.min(PIECE, r.length - at) });
      return out;
    });
    // Read ahead: the next piece loads while this one is pushed.
    let next = pieces.length ? readPiece(pieces[0]) : null;
    for (let i = 0; i < pieces.length; ++i) {
      const bytes = await next;
      throwIfAborted(signal);
      next = i + 1 < pieces.length ? readPiece(pieces[i + 1]) : null;
      next?.catch(() => {});
      pushBytes(wasm, target, bytes);
      progress.add(bytes.length);
    }
    return progress;
  } finally {
    stopPrefault(wasm);
    await Promise.all(sources.map((s) => s.close?.()?.catch?.(() => {})));
  }
}

async function readPiece({ source, offset, length }) {
  const bytes = await source.read(offset, length);
  if (bytes.length < length) throw new WasmLMError('TRUNCATED', `the checkpoint ends before byte ${offset + length}`, { offset });
  return bytes;
}

async function readShardDirectory(wasm, model, source, signal) {
  model.beginCheckpointShard(source.size);
  await readUntilDone(source, () => model.readCheckpointShard(), (offset, bytes) => {
    const ptr = model.staging(bytes.length) >>> 0;
    wasm.HEAPU8.set(bytes, ptr);
    model.checkpointRange(offset, bytes.length);
  }, { signal });
}

/**
 * The heap the checkpoint takes: the tensors as stored (quantized matrices
 * at their quantized size), plus the largest tensor, which is held whole
 * before it is quantized or while its shards are joined.
 */
function checkpointMemory(wasm, directory, { contextLength, kvCache, quantize }) {
  const estimate = estimateModelMemory(directory, { contextLength, kvCache });
  const type = quantize ? wasm.typeTable().find((t) => t.name === String(quantize)) : null;
  let weights = 0;
  let largest = 0;
  for (const t of directory.tensors) {
    const nbytes = Number(t.nbytes);
    largest = Math.max(largest, nbytes);
    const [cols, rows] = t.shape.map(Number);
    weights += type && t.shape.length === 2 && cols % type.blockSize === 0 ? rows * (cols / type.blockSize) * type.typeSize : nbytes;
  }
  weights += largest;
  return { ...estimate, weights, total: weights + estimate.kvCache + estimate.headroom };
}
