// A ByteSource over HTTP(S). With a server that honours Range requests it
// reads only the slices asked for; with one that answers 200 to a Range
// request it falls back to streaming the body once (see stream-source.js).
import { WasmLMError, abortedError } from '../errors.js';
import { contentLength, streamSource } from './stream-source.js';

/** The first request asks for this many bytes: most GGUF headers fit. */
const PROBE_BYTES = 64 * 1024;

/**
 * @param {string|URL} url
 * @param {{signal?: AbortSignal, fetch?: typeof fetch}} [options]
 */
export async function openUrlSource(url, { signal, fetch: fetchFn = globalThis.fetch } = {}) {
  const href = String(url);
  const get = (init) => request(fetchFn, href, { ...init, signal });
  const first = await get({ headers: { Range: `bytes=0-${PROBE_BYTES - 1}` } });

  if (first.status === 200) return streamSource(first.body, contentLength(first));
  if (first.status === 416) { // an empty file has no byte 0
    await first.body?.cancel();
    return { size: 0, read: async () => new Uint8Array(0) };
  }
  const range = checkPartial(first, href, 0);
  let cached = { offset: 0, bytes: await bodyBytes(first, signal) };

  return {
    size: range.size,
    async read(offset, length) {
      if (range.size !== undefined) length = Math.min(length, range.size - offset);
      if (length <= 0) return new Uint8Array(0);
      const at = offset - cached.offset;
      if (at >= 0 && at + length <= cached.bytes.length) return cached.bytes.subarray(at, at + length);
      const response = await get({ headers: { Range: `bytes=${offset}-${offset + length - 1}` } });
      if (response.status === 416) {
        await response.body?.cancel();
        return new Uint8Array(0);
      }
      checkPartial(response, href, offset);
      cached = { offset, bytes: await bodyBytes(response, signal) };
      return cached.bytes;
    },
  };
}

async function request(fetchFn, href, init) {
  let response;
  try {
    response = await fetchFn(href, init);
  } catch (cause) {
    if (init.signal?.aborted) throw abortedError(init.signal);
    throw new WasmLMError('IO', `cannot fetch ${href}: ${cause.message}`, { cause });
  }
  if (response.status !== 200 && response.status !== 206 && response.status !== 416) {
    await response.body?.cancel();
    throw new WasmLMError('IO', `HTTP ${response.status} ${response.statusText} for ${href}`.trimEnd());
  }
  return response;
}

/** Checks a 206 answer starts where asked; returns {start, size}. */
function checkPartial(response, href, offset) {
  const match = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(response.headers.get('Content-Range') ?? '');
  if (response.status !== 206 || !match || Number(match[1]) !== offset) {
    response.body?.cancel();
    throw new WasmLMError('IO', `${href} answered a Range request for byte ${offset} without that range`);
  }
  return { start: offset, size: match[3] === '*' ? undefined : Number(match[3]) };
}

async function bodyBytes(response, signal) {
  try {
    return new Uint8Array(await response.arrayBuffer());
  } catch (cause) {
    if (signal?.aborted) throw abortedError(signal);
    throw new WasmLMError('IO', `reading ${response.url}: ${cause.message}`, { cause });
  }
}
