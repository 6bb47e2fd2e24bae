// A ByteSource over HTTP(S). With a server that honours Range requests it
// reads only the slices asked for; with one that answers 200 to a Range
// request it falls back to streaming the body once (see stream-source.js).
import { WasmLMError } from '../errors.js';
import { bodySource, contentLength } from './stream-source.js';
import { DEFAULT_READ_TIMEOUT_MS, httpRequest } from './http-request.js';

/** The first request asks for this many bytes: most GGUF headers fit. */
const PROBE_BYTES = 64 * 1024;

/**
 * @param {string|URL} url
 * @param {{signal?: AbortSignal, fetch?: typeof fetch, readTimeout?: number}} [options]
 */
export async function openUrlSource(url, { signal, fetch: fetchFn = globalThis.fetch, readTimeout = DEFAULT_READ_TIMEOUT_MS } = {}) {
  const href = String(url);
  const get = (headers) => httpRequest(fetchFn, href, { headers, signal, readTimeout, accept: [200, 206, 416] });
  const first = await get({ Range: `bytes=0-${PROBE_BYTES - 1}` });

  if (first.response.status === 200) { // no Range support: the body once, in order
    first.stop(); // a stream read at the consumer's pace: no read timeout
    return bodySource(first.response.body, contentLength(first.response), href);
  }
  if (first.response.status === 416) { // an empty file has no byte 0
    await first.response.body?.cancel();
    first.stop();
    return { size: 0, read: async () => new Uint8Array(0) };
  }
  let range = checkPartial(first.response, href, 0);
  let cached = { offset: 0, bytes: await rangeBytes(first, range, href) };

  return {
    size: range.size,
    async read(offset, length) {
      if (range.size !== undefined) length = Math.min(length, range.size - offset);
      if (length <= 0) return new Uint8Array(0);
      const at = offset - cached.offset;
      if (at >= 0 && at + length <= cached.bytes.length) return cached.bytes.subarray(at, at + length);
      const next = await get({ Range: `bytes=${offset}-${offset + length - 1}` });
      if (next.response.status === 416) {
        await next.response.body?.cancel();
        next.stop();
        return new Uint8Array(0);
      }
      range = { ...checkPartial(next.response, href, offset), size: range.size };
      cached = { offset, bytes: await rangeBytes(next, range, href) };
      return cached.bytes;
    },
  };
}

/** Checks a 206 answer starts where asked; returns {start, end, size}. */
function checkPartial(response, href, offset) {
  const match = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(response.headers.get('Content-Range') ?? '');
  if (response.status !== 206 || !match || Number(match[1]) !== offset) {
    response.body?.cancel();
    throw new WasmLMError('IO', `${href} answered a Range request for byte ${offset} without that range`);
  }
  return { start: offset, end: Number(match[2]), size: match[3] === '*' ? undefined : Number(match[3]) };
}

/** The body of a 206: exactly the bytes its Content-Range names. */
async function rangeBytes(request, { start, end }, href) {
  const bytes = await request.bytes();
  const want = end - start + 1;
  if (bytes.length < want) {
    throw new WasmLMError('TRUNCATED', `${href}: the answer for bytes ${start}-${end} ended after ${bytes.length} of ${want} bytes`,
      { offset: start + bytes.length });
  }
  if (bytes.length > want) {
    throw new WasmLMError('BAD_FORMAT', `${href}: the answer for bytes ${start}-${end} has ${bytes.length} bytes, more than its Content-Range`,
      { offset: start });
  }
  return bytes;
}
