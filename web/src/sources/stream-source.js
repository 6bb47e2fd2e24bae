// ByteSources without random access: the bytes arrive once, in order.
import { WasmLMError } from '../errors.js';

export function streamSource(stream, size) {
  return {
    size,
    stream: () => stream,
    async close() {
      if (!stream.locked) await stream.cancel().catch(() => {});
    },
  };
}

export function responseSource(response) {
  if (!response.ok) {
    throw new WasmLMError('IO', `HTTP ${response.status} ${response.statusText} for ${response.url}`.trimEnd());
  }
  return streamSource(response.body ?? new ReadableStream({ start: (c) => c.close() }), contentLength(response));
}

/** The body's length in bytes, unless unknown or describing a compressed body. */
export function contentLength(response) {
  const encoding = response.headers.get('Content-Encoding');
  if (encoding && encoding !== 'identity') return undefined;
  const length = Number(response.headers.get('Content-Length') ?? NaN);
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined;
}
