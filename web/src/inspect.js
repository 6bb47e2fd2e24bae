// inspect(): the directory of a model file (format, metadata, tensors) plus a
// summary, reading only the header bytes where the source allows.
import { WasmLMError, abortedError, throwIfAborted } from './errors.js';
import { summarizeModel } from './model-summary.js';
import { decodeMetadata } from './parse/metadata-values.js';
import { looksLikePth, readPthDirectory } from './parse/read-pth-directory.js';
import { readModelDirectory } from './parse/read-model-directory.js';
import { openByteSource } from './sources/byte-source.js';
import { loadWasmModule } from './wasm/load-module.js';
import { fileNameOf, findCheckpoint, readParams } from './model/checkpoint-files.js';

/**
 * @param {unknown} input URL, path, file: URL, Blob/File, ArrayBuffer, typed array, Response, ReadableStream or ByteSource;
 *   or a Meta checkpoint: its folder (a Node path) or its files (params.json, consolidated.NN.pth, ...)
 * @param {{signal?: AbortSignal, fetch?: typeof fetch, readTimeout?: number, wasm?: object}} [options]
 */
export async function inspect(input, { signal, fetch, readTimeout, wasm } = {}) {
  throwIfAborted(signal);
  const module = wasm ?? (await loadWasmModule());
  let source;
  try {
    const checkpoint = await findCheckpoint(input);
    if (checkpoint) return await inspectCheckpoint(module, checkpoint, { signal, fetch, readTimeout });
    source = await openByteSource(input, { signal, fetch, readTimeout });
    if (typeof source.read === 'function' && source.size >= 8 && looksLikePth(await source.read(0, 8))) {
      return summarizePth(await readPthDirectory(module, source, { signal }));
    }
    const directory = await readModelDirectory(module, source, { signal });
    return summarizeModel({
      ...directory,
      fileSize: directory.fileSize || null, // 0: a stream of unknown length, left after the header
      metadata: decodeMetadata(directory.metadata),
    });
  } catch (error) {
    if (!(error instanceof WasmLMError) && signal?.aborted) throw abortedError(signal);
    throw error;
  } finally {
    await source?.close?.();
  }
}

/**
 * A Meta checkpoint folder: params.json and every shard's tensors (each
 * with its shard's index), read by ranges, no tensor data.
 */
async function inspectCheckpoint(wasm, checkpoint, { signal, fetch, readTimeout }) {
  const text = await readParams(checkpoint.params, { signal, fetch });
  let params;
  try {
    params = JSON.parse(text);
  } catch (cause) {
    throw new WasmLMError('BAD_FORMAT', `params.json is not JSON: ${cause.message}`, { cause });
  }
  const shards = [];
  const tensors = [];
  let storageCount = 0;
  for (const [k, shard] of checkpoint.shards.entries()) {
    const source = await openByteSource(shard, { signal, fetch, readTimeout });
    try {
      const directory = await readPthDirectory(wasm, source, { signal });
      shards.push({ name: fileNameOf(shard), format: directory.format, pickleProtocol: directory.pickleProtocol,
        fileSize: directory.fileSize, tensorCount: directory.tensors.length });
      for (const t of directory.tensors) tensors.push({ ...t, shard: k });
      storageCount += directory.storageCount;
    } finally {
      await source.close?.();
    }
  }
  return {
    ...summarizePth({ format: 'meta-checkpoint', tensors, storageCount, fileSize: shards.reduce((n, s) => n + s.fileSize, 0) }),
    params,
    shards,
    tokenizerFile: checkpoint.tokenizer ? fileNameOf(checkpoint.tokenizer) : null,
  };
}

/** A PyTorch checkpoint's directory in the summary's shape: tensors with torch's dtype, shape and stride. */
function summarizePth(directory) {
  const bytesByType = {};
  const tensorCountByType = {};
  let parameterCount = 0;
  for (const t of directory.tensors) {
    bytesByType[t.dtype] = (bytesByType[t.dtype] ?? 0) + t.nbytes;
    tensorCountByType[t.dtype] = (tensorCountByType[t.dtype] ?? 0) + 1;
    parameterCount += t.shape.reduce((a, b) => a * b, 1);
  }
  return {
    format: directory.format,
    ...(directory.pickleProtocol == null ? {} : { pickleProtocol: directory.pickleProtocol }),
    endianness: 'little',
    fileSize: directory.fileSize,
    metadata: {},
    metadataTypes: {},
    architecture: {},
    tokenizer: {},
    warnings: [],
    tensors: directory.tensors.map((t) => ({ ...t, type: t.dtype })),
    storageCount: directory.storageCount,
    parameterCount,
    bytesByType,
    tensorCountByType,
  };
}
