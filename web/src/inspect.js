// inspect(): the directory of a model file (format, metadata, tensors) plus a
// summary, reading only the header bytes where the source allows.
import { WasmLMError, abortedError, throwIfAborted } from './errors.js';
import { summarizeModel } from './model-summary.js';
import { decodeMetadata } from './parse/metadata-values.js';
import { looksLikePth, readPthDirectory } from './parse/read-pth-directory.js';
import { readModelDirectory } from './parse/read-model-directory.js';
import { openByteSource } from './sources/byte-source.js';
import { loadWasmModule } from './wasm/load-module.js';

/**
 * @param {unknown} input URL, path, file: URL, Blob/File, ArrayBuffer, typed array, Response, ReadableStream or ByteSource
 * @param {{signal?: AbortSignal, fetch?: typeof fetch, wasm?: object}} [options]
 */
export async function inspect(input, { signal, fetch, wasm } = {}) {
  throwIfAborted(signal);
  const module = wasm ?? (await loadWasmModule());
  let source;
  try {
    source = await openByteSource(input, { signal, fetch });
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
