// Turns whatever the caller passed (URL, path, Blob, bytes, stream) into a
// ByteSource:
//   size     total bytes, or undefined when unknown
//   read(offset, length) -> Promise<Uint8Array>   random access (fewer bytes only at the end)
//   stream() -> ReadableStream<Uint8Array>        the file in order, when there is no random access
//   close()                                       releases handles / cancels an unread body
import { badOption } from '../errors.js';
import { isNode } from '../wasm/environment.js';
import { arraySource } from './array-source.js';
import { blobSource } from './blob-source.js';
import { openUrlSource } from './url-source.js';
import { responseSource, streamSource } from './stream-source.js';

const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
const WINDOWS_DRIVE = /^[a-z]:[\\/]/i;

/**
 * @param {unknown} input
 * @param {{signal?: AbortSignal, fetch?: typeof fetch}} [options]
 */
export async function openByteSource(input, options = {}) {
  if (isBlob(input)) return blobSource(input);
  if (isArrayBuffer(input) || ArrayBuffer.isView(input)) return arraySource(input);
  if (typeof Response === 'function' && input instanceof Response) return responseSource(input);
  if (typeof ReadableStream === 'function' && input instanceof ReadableStream) return streamSource(input);
  if (typeof input === 'string' || isUrl(input)) return openLocation(String(input), options);
  if (isNode && isNodeReadable(input)) {
    const { Readable } = await import('node:stream');
    return streamSource(Readable.toWeb(input));
  }
  if (input && (typeof input.read === 'function' || typeof input.stream === 'function')) return input;
  throw badOption('the source', 'a URL, path, Blob, ArrayBuffer, typed array, Response, ReadableStream or ByteSource', input);
}

async function openLocation(location, options) {
  const scheme = WINDOWS_DRIVE.test(location) ? null : SCHEME.exec(location)?.[1].toLowerCase();
  if (isNode && (scheme === 'file' || scheme == null)) {
    const { openNodeFileSource } = await import('./node-file-source.js');
    return openNodeFileSource(location);
  }
  const url = scheme == null ? new URL(location, globalThis.document?.baseURI ?? globalThis.location?.href) : location;
  return openUrlSource(url, options);
}

// A Node stream.Readable also has read(), with other semantics than ByteSource's.
function isNodeReadable(value) {
  return typeof value?.pipe === 'function' && typeof value.on === 'function' && typeof value.read === 'function';
}

function isUrl(value) {
  return Object.prototype.toString.call(value) === '[object URL]';
}

function isBlob(value) {
  return typeof Blob === 'function' && value instanceof Blob;
}

// Buffers made in another realm (e.g. Jest's sandbox) fail instanceof.
function isArrayBuffer(value) {
  const tag = Object.prototype.toString.call(value);
  return tag === '[object ArrayBuffer]' || tag === '[object SharedArrayBuffer]';
}
