// Before the weights are downloaded: will the model and its KV cache fit in
// the wasm32 heap? Estimated from the directory (tensor sizes and the
// architecture's hyperparameters), checked against what the heap can still
// grow by, and, when the heap has grown before (memory freed inside it can be
// reused), by allocating the amount in 64 MiB blocks and freeing them again.
import { WasmLMError } from '../errors.js';
import { architectureSummary } from '../model-summary.js';

export const MiB = 1024 * 1024;
/** -sMAXIMUM_MEMORY=4GB */
export const WASM_MAX_HEAP = 4096 * MiB;
/** Scratch, logits, tokenizer, allocator overhead. */
export const HEADROOM = 64 * MiB;
const PROBE_BLOCK = 64 * MiB;

/**
 * @param {object} directory describe() of the parser (raw metadata)
 * @param {{contextLength: number, kvCache: 'f16'|'f32'|'q8_0', fileSize?: number}} options
 * @returns {{weights: number, kvCache: number, headroom: number, total: number}}
 */
export function estimateModelMemory(directory, { contextLength, kvCache, fileSize, complete = true }) {
  let weights = 0;
  for (const t of directory.tensors) weights += Number(t.nbytes);
  // Record formats list tensors as they come: until then the file size bounds them.
  if (!complete && fileSize) weights = Math.max(weights, fileSize - Number(directory.dataOffset || 0));
  const a = architectureSummary(directory.metadata, directory.tensors);
  const n = (v) => (v == null ? null : Number(Array.isArray(v) || ArrayBuffer.isView(v) ? Math.max(...Array.from(v, Number)) : v));
  const layers = n(a.blockCount) ?? 0;
  const heads = n(a.headCount);
  const headsKv = n(a.headCountKv) ?? heads;
  const embd = n(a.embeddingLength);
  const headDim = heads ? Math.floor((embd ?? 0) / heads) : 0;
  const keyLength = n(a.keyLength) ?? headDim;
  const valueLength = n(a.valueLength) ?? headDim;
  // bytes per value against F16's 2: Q8_0 keeps 34 bytes per 32 values
  const elem = kvCache === 'f32' ? 2 : kvCache === 'q8_0' ? 17 / 32 : 1;
  // A decoder row says exactly what its cache keeps (windowed layers: a ring).
  const d = directory.decoder?.kvCacheF16;
  const kv = d ? elem * (d.bytesPerPosition * contextLength + d.windowedBytesPerPosition * Math.min(contextLength, d.ringPositions || contextLength))
    : a.rwkvVersion ? 0 : elem * 2 * layers * (headsKv ?? 0) * (keyLength + valueLength) * contextLength;
  return { weights, kvCache: kv, headroom: HEADROOM, total: weights + kv + HEADROOM };
}

/**
 * Throws OUT_OF_MEMORY if `needed` bytes cannot be allocated in the wasm heap.
 * @param {object} wasm the Emscripten module
 * @param {{weights: number, kvCache: number, headroom: number, total: number}} estimate
 * @param {{contextLength: number, kvCache: string}} options
 */
export function checkModelFits(wasm, estimate, { contextLength, kvCache }) {
  const heap = wasm.HEAPU8.buffer.byteLength;
  const growable = WASM_MAX_HEAP - heap;
  if (estimate.total <= growable) return;
  // Memory already in the heap may be free (a model loaded before): try.
  if (estimate.total <= WASM_MAX_HEAP && probe(wasm, estimate.total)) return;
  const error = new WasmLMError('OUT_OF_MEMORY', `the model needs ${mib(estimate.total)} of wasm memory `
    + `(weights ${mib(estimate.weights)} + KV cache ${mib(estimate.kvCache)} for ${contextLength} tokens in ${kvCache} `
    + `+ ${mib(estimate.headroom)} working space), more than the ${mib(WASM_MAX_HEAP)} wasm32 heap can give `
    + `(${mib(heap)} in use or reserved)${estimate.kvCache > estimate.weights ? '; use a smaller contextLength' : ''}`);
  error.bytesNeeded = estimate.total;
  error.bytesAvailable = Math.max(growable, 0);
  throw error;
}

/** Scratch beyond the weights and the KV cache that reserveHeap() leaves room for. */
const RESERVE_MARGIN = 16 * MiB;
const PIECE_LIMIT = 1536 * MiB;

/**
 * Grows the heap once to what the model will still take, instead of in
 * steps as the tensors arrive (each Emscripten growth adds up to 20% and
 * overshoots the request by up to 16 MiB: -sMEMORY_GROWTH_GEOMETRIC_CAP).
 * Only what free memory cannot give is added, by mallocs at the top chunk,
 * freed at once (the allocator keeps the room). Nothing is added when free
 * memory holds the weights and KV cache and lacks only some of the margin.
 * `allocated`: weight bytes already placed (the first tensor may start in
 * the header's last piece). `margin`: working space to add (none when the
 * estimate holds a transient tensor whose room is freed after the load).
 * Best effort: the allocations themselves are what fail when memory runs out.
 * Returns the fresh room, {begin, end} (heap addresses), or null when the
 * heap did not grow.
 */
export function reserveHeap(wasm, estimate, allocated = 0, margin = RESERVE_MARGIN) {
  if (typeof wasm._malloc !== 'function' || typeof wasm.heapFree !== 'function') return null;
  const needed = Math.max(0, estimate.weights - allocated) + estimate.kvCache;
  const { free, top, unclaimed } = wasm.heapFree();
  const available = free + unclaimed;
  if (needed <= available) return null;
  // In pieces of at most 1.5 GiB (one malloc above ~2 GB fails in wasm32): the
  // first takes the top chunk and what is above the break, each next one
  // extends the heap by exactly its size (a growth of more than 20% is not
  // rounded up); all are freed at once and merge into one free top chunk.
  let grow = needed + margin - available;
  const taken = [];
  for (let size = top + unclaimed; grow > 0; size = 0) {
    const piece = Math.min(grow, PIECE_LIMIT);
    const ptr = wasm._malloc(size + piece);
    if (!ptr) break;
    taken.push(ptr);
    grow -= piece;
  }
  for (const ptr of taken) wasm._free(ptr);
  return taken.length ? { begin: taken[0] >>> 0, end: wasm.HEAPU8.length } : null;
}

/** Can `bytes` be allocated in blocks? Frees whatever it took. */
function probe(wasm, bytes) {
  if (typeof wasm._malloc !== 'function') return false;
  const taken = [];
  let ok = true;
  try {
    for (let left = bytes; left > 0; left -= PROBE_BLOCK) {
      const ptr = wasm._malloc(Math.min(PROBE_BLOCK, left));
      if (!ptr) {
        ok = false;
        break;
      }
      taken.push(ptr);
    }
  } catch {
    ok = false;
  } finally {
    for (const ptr of taken) wasm._free(ptr);
  }
  return ok;
}

function mib(bytes) {
  return bytes >= 1024 * MiB ? `${(bytes / 1024 / MiB).toFixed(2)} GiB` : `${(bytes / MiB).toFixed(1)} MiB`;
}
