// A model file as a sequence of chunks, in order, for openModel(): a URL is
// ONE streaming GET (resumed with Range requests if it breaks off, optionally
// cached), a Blob as its stream, a Node file with positional reads into two
// reused buffers, bytes in memory as views. Streams are read into a recycled
// buffer (chunk-reader.js): a chunk is valid until the next is asked for, and
// the JS heap never holds more than a couple of chunks.
import { WasmLMError } from '../errors.js';
import { isNode } from '../wasm/environment.js';
import { openByteSource } from '../sources/byte-source.js';
import { openChunkReader } from '../sources/chunk-reader.js';
import { openDownload } from '../sources/url-download.js';

const CHUNK = 4 * 1024 * 1024;
const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
const WINDOWS_DRIVE = /^[a-z]:[\\/]/i;

/**
 * @param {unknown} input
 * @param {{signal?: AbortSignal, fetch?: typeof fetch, retries?: number, retryDelay?: number, cache?: boolean}} options
 * @returns {Promise<{size: number|undefined, origin: string, chunks(): AsyncGenerator<Uint8Array>, close(): Promise<void>}>}
 */
export async function openModelBytes(input, options = {}) {
  if (Array.isArray(input)) {
    if (input.length === 1) return openModelBytes(input[0], options);
    throw new WasmLMError('INTERNAL', 'openModelBytes reads one file; openModel reads the shards of a split GGUF one by one');
  }
  if (typeof Blob === 'function' && input instanceof Blob) return blobChunks(input);
  if (isArrayBuffer(input) || ArrayBuffer.isView(input)) return memoryChunks(input);
  if (typeof input === 'string' || Object.prototype.toString.call(input) === '[object URL]') {
    const location = String(input);
    const scheme = WINDOWS_DRIVE.test(location) ? null : SCHEME.exec(location)?.[1].toLowerCase();
    if (isNode && (scheme === 'file' || scheme == null)) return nodeFileChunks(location);
    const url = scheme == null ? new URL(location, globalThis.document?.baseURI ?? globalThis.location?.href) : location;
    return openDownload(url, options);
  }
  return sourceChunks(await openByteSource(input, options));
}

function memoryChunks(data) {
  const bytes = ArrayBuffer.isView(data)
    ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
    : new Uint8Array(data);
  return {
    size: bytes.length,
    origin: 'memory',
    async* chunks() {
      for (let at = 0; at < bytes.length; at += 4 * CHUNK) yield bytes.subarray(at, Math.min(at + 4 * CHUNK, bytes.length));
    },
    async close() {},
  };
}

function blobChunks(blob) {
  let reader = null;
  const close = async () => {
    await reader?.cancel().catch(() => {});
  };
  return {
    size: blob.size,
    origin: 'file',
    async* chunks() {
      reader = openChunkReader(blob.stream());
      try {
        for (;;) {
          let result;
          try {
            result = await reader.read();
          } catch (cause) {
            throw new WasmLMError('IO', `cannot read the file: ${cause.message}`, { cause });
          }
          if (result.done) return;
          yield result.value;
        }
      } finally {
        await close();
      }
    },
    close,
  };
}

async function nodeFileChunks(location) {
  const { open } = await import('node:fs/promises');
  const { fileURLToPath } = await import('node:url');
  const path = location.startsWith('file:') ? fileURLToPath(location) : location;
  let handle;
  let size;
  try {
    handle = await open(path, 'r');
    const stat = await handle.stat();
    if (!stat.isFile()) throw new Error('not a regular file');
    size = stat.size;
  } catch (cause) {
    await handle?.close();
    throw new WasmLMError('IO', `cannot read ${path}: ${cause.message}`, { cause });
  }
  let closed = false;
  const close = async () => {
    if (!closed) {
      closed = true;
      await handle.close();
    }
  };
  // Two buffers: one is parsed while the other is being read into.
  const buffers = [new Uint8Array(Math.min(CHUNK, size)), new Uint8Array(Math.min(CHUNK, size))];
  const read = (at, buffer) => handle.read(buffer, 0, Math.min(CHUNK, size - at), at).then(
    ({ bytesRead }) => buffer.subarray(0, bytesRead),
    (cause) => {
      throw new WasmLMError('IO', `cannot read ${path}: ${cause.message}`, { cause });
    },
  );
  return {
    size,
    origin: 'file',
    async* chunks() {
      try {
        let next = size > 0 ? read(0, buffers[0]) : null;
        for (let at = 0, i = 0; next; i ^= 1) {
          const bytes = await next;
          if (bytes.length === 0) break; // the file shrank
          at += bytes.length;
          next = at < size ? read(at, buffers[i ^ 1]) : null;
          next?.catch(() => {});
          yield bytes;
        }
      } finally {
        await close();
      }
    },
    close,
  };
}

/** Any other ByteSource (Response, ReadableStream, Node stream, custom). */
function sourceChunks(source) {
  return {
    size: source.size,
    origin: 'stream',
    async* chunks() {
      if (typeof source.read === 'function') {
        for (let at = 0; ; ) {
          const bytes = await source.read(at, CHUNK);
          if (bytes.length === 0) return;
          at += bytes.length;
          yield bytes;
        }
      }
      const reader = openChunkReader(source.stream());
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          yield value;
        }
      } finally {
        await reader.cancel().catch(() => {});
      }
    },
    close: async () => source.close?.(),
  };
}

// Buffers made in another realm (e.g. Jest's sandbox) fail instanceof.
function isArrayBuffer(value) {
  const tag = Object.prototype.toString.call(value);
  return tag === '[object ArrayBuffer]' || tag === '[object SharedArrayBuffer]';
}

const SHARD_NAME = /-(\d{5})-of-(\d{5})\.gguf$/i;

/**
 * The shards of a split GGUF in order (by their "-0000k-of-0000N.gguf"
 * names when every one has such a name: a path, URL or File), else as given.
 * @param {unknown[]} inputs
 */
export function orderShards(inputs) {
  const nameOf = (x) => (typeof x === 'string' || Object.prototype.toString.call(x) === '[object URL]' ? String(x).split(/[?#]/)[0]
    : typeof x?.name === 'string' ? x.name : null);
  const numbered = inputs.map((x) => ({ x, m: SHARD_NAME.exec(nameOf(x) ?? '') }));
  if (numbered.some(({ m }) => !m)) return inputs.slice();
  return numbered.sort((a, b) => Number(a.m[1]) - Number(b.m[1])).map(({ x }) => x);
}
