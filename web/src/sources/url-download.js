// A whole-file download as ONE streaming GET, for sequential loading: the
// response body is read chunk by chunk (never buffered whole). If the body
// breaks off (a dropped connection, or fewer bytes than Content-Length), the
// download resumes with `Range: bytes=<loaded>-` (If-Range: the ETag or
// Last-Modified of the first answer), checking that the 206 starts where it
// stopped and is the same file, up to `retries` times. With `cache`, the file
// is stored in the Cache API as it streams, and a later download of the same
// URL (same size and ETag/Last-Modified) is read from there. Each chunk is
// valid until the next one is asked for (see chunk-reader.js).
import { WasmLMError, abortedError } from '../errors.js';
import { openModelCache, sameEntity, startCacheWrite, validatorsOf } from '../cache/model-cache.js';
import { openChunkReader } from './chunk-reader.js';
import { contentLength } from './stream-source.js';
import { DEFAULT_READ_TIMEOUT_MS, httpRequest } from './http-request.js';

/**
 * @param {string|URL} url
 * @param {{signal?: AbortSignal, fetch?: typeof fetch, retries?: number, retryDelay?: number, cache?: boolean}} [options]
 * @returns {Promise<{size: number|undefined, origin: 'network'|'cache', chunks(): AsyncGenerator<Uint8Array>, close(): Promise<void>}>}
 */
export async function openDownload(url, {
  signal, fetch: fetchFn = globalThis.fetch, retries = 3, retryDelay = 200, cache = false, readTimeout = DEFAULT_READ_TIMEOUT_MS,
} = {}) {
  const href = String(url);
  if (typeof fetchFn !== 'function') throw new WasmLMError('IO', `cannot fetch ${href}: no fetch() here`);
  let current = null; // the request whose body is being read
  const get = async (headers) => {
    current = await httpRequest(fetchFn, href, { headers, signal, readTimeout, accept: [200, 206, 304] });
    return current.response;
  };
  const store = cache ? await openModelCache() : null;
  const cached = store ? await store.match(href).catch(() => undefined) : undefined;

  let response;
  let origin = 'network';
  if (cached) {
    const stored = validatorsOf(cached, contentLength(cached));
    let fresh = null;
    try {
      fresh = await get(conditionalHeaders(stored));
    } catch (error) {
      if (error.code !== 'IO') throw error; // offline: the stored copy will do
    }
    if (!fresh || fresh.status === 304 || (fresh.status === 200 && sameEntity(stored, validatorsOf(fresh, contentLength(fresh))))) {
      await fresh?.body?.cancel().catch(() => {});
      current?.stop();
      response = cached;
      origin = 'cache';
    } else {
      await store.delete(href).catch(() => {});
      response = fresh;
    }
  } else {
    response = await get({});
  }
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => {});
    throw new WasmLMError('IO', `HTTP ${response.status} ${response.statusText} for ${href}`.trimEnd());
  }

  const size = contentLength(response);
  const validators = validatorsOf(response, size);
  let reader = openChunkReader(response.body ?? new ReadableStream({ start: (c) => c.close() }));
  let writer = origin === 'network' ? startCacheWrite(store, href, validators, response.headers.get('Content-Type')) : null;

  const close = async () => {
    current?.stop();
    await reader.cancel().catch(() => {}); // a no-op once the body has ended
    const unfinished = writer;
    writer = null;
    await unfinished?.abort();
  };

  // The body from `loaded` on, after it broke off: a Range request, or the
  // cached copy's failure handed over to the network.
  async function resume(loaded, attempt, cause) {
    await delay(retryDelay * attempt, signal);
    const headers = { Range: `bytes=${loaded}-` };
    const validator = validators.etag && !validators.etag.startsWith('W/') ? validators.etag : validators.lastModified;
    if (validator) headers['If-Range'] = validator;
    const next = await get(headers);
    if (next.status === 206) {
      const match = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(next.headers.get('Content-Range') ?? '');
      const total = match && match[3] !== '*' ? Number(match[3]) : undefined;
      const etag = next.headers.get('ETag');
      if (!match || Number(match[1]) !== loaded || (size !== undefined && total !== undefined && total !== size)
          || (etag && validators.etag && etag !== validators.etag)) {
        await next.body?.cancel().catch(() => {});
        throw final(new WasmLMError('IO', `${href}: the resumed download (Range from byte ${loaded}) is not the rest of the same file`, { cause }));
      }
      return { reader: openChunkReader(next.body), skip: 0 };
    }
    // 200: the server ignored the Range (or If-Range said the file changed).
    if (next.status === 200 && size !== undefined && sameEntity(validators, validatorsOf(next, contentLength(next)))) {
      return { reader: openChunkReader(next.body), skip: loaded };
    }
    await next.body?.cancel().catch(() => {});
    throw final(new WasmLMError('IO', `${href} changed on the server while it was downloading (byte ${loaded})`, { cause }));
  }

  async function* chunks() {
    let loaded = 0;
    let attempt = 0;
    let skip = 0;
    try {
      for (;;) {
        let result;
        let broke = null;
        try {
          result = origin === 'cache' ? await reader.read() : await current.read(reader);
        } catch (cause) {
          if (signal?.aborted) throw abortedError(signal);
          broke = cause;
        }
        if (signal?.aborted) throw abortedError(signal);
        if (!broke && result.done && size !== undefined && loaded < size) broke = ENDED_EARLY;
        if (broke) {
          if (origin === 'cache') { // a damaged stored copy: drop it, go on from the network
            origin = 'network';
            await store.delete(href).catch(() => {});
          } else if (++attempt > retries) {
            const what = `${href}: ${broke === ENDED_EARLY ? 'the body ended' : 'the connection broke'} after ${loaded} of ${size} bytes`
              + ` (${broke.message}); gave up after ${retries} resumes`;
            throw new WasmLMError(broke === ENDED_EARLY ? 'TRUNCATED' : 'IO', what, { cause: broke, offset: loaded });
          }
          reader.cancel().catch(() => {});
          for (;;) {
            try {
              ({ reader, skip } = await resume(loaded, attempt, broke));
              break;
            } catch (error) {
              if (signal?.aborted) throw abortedError(signal);
              if (error.code !== 'IO' || error[FINAL] || ++attempt > retries) throw error;
            }
          }
          continue;
        }
        if (result.done) break;
        let chunk = result.value;
        if (skip > 0) {
          const n = Math.min(skip, chunk.length);
          skip -= n;
          chunk = chunk.subarray(n);
          if (chunk.length === 0) continue;
        }
        if (size !== undefined && loaded + chunk.length > size) {
          throw new WasmLMError('BAD_FORMAT', `${href} sent more than its Content-Length of ${size} bytes`, { offset: size });
        }
        loaded += chunk.length;
        if (writer) await writer.write(reader.recycled ? chunk.slice() : chunk); // the reader reuses its buffer
        if (loaded === size && writer) {
          // The last byte: store the file now (the consumer may stop reading here).
          const complete = writer;
          writer = null;
          await complete.close();
        }
        yield chunk;
      }
      if (writer) {
        const complete = writer;
        writer = null;
        await complete.close();
      }
    } finally {
      await close();
    }
  }

  return {
    size,
    get origin() {
      return origin;
    },
    get fromCache() {
      return origin === 'cache';
    },
    chunks,
    close,
  };
}

const FINAL = Symbol('no retry');
const ENDED_EARLY = new Error('the body ended before its Content-Length');
function final(error) {
  error[FINAL] = true;
  return error;
}

function conditionalHeaders({ etag, lastModified }) {
  if (etag) return { 'If-None-Match': etag };
  if (lastModified) return { 'If-Modified-Since': lastModified };
  return {};
}

function delay(ms, signal) {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = () => {
      done();
      reject(abortedError(signal));
    };
    const timer = setTimeout(() => {
      done();
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
