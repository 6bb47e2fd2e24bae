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
  return bodySource(response.body, contentLength(response), response.url || 'the response');
}

/**
 * An HTTP body as a ByteSource: with a known Content-Length, a body that
 * ends short of it fails with TRUNCATED and one that runs past it with
 * BAD_FORMAT, instead of passing for a file of another size.
 */
export function bodySource(body, size, name) {
  const stream = body ?? new ReadableStream({ start: (c) => c.close() });
  if (size === undefined) return streamSource(stream, size);
  let seen = 0;
  const checked = stream.pipeThrough(new TransformStream({
    transform(chunk, controller) {
      seen += chunk.length;
      if (seen > size) {
        throw new WasmLMError('BAD_FORMAT', `${name} sent more than its Content-Length of ${size} bytes`, { offset: size });
      }
      controller.enqueue(chunk);
    },
    flush() {
      if (seen < size) {
        throw new WasmLMError('TRUNCATED', `${name} ended after ${seen} of its Content-Length of ${size} bytes`, { offset: seen });
      }
    },
  }));
  return streamSource(checked, size);
}

/** The body's length in bytes, unless unknown or describing a compressed body. */
export function contentLength(response) {
  const encoding = response.headers.get('Content-Encoding');
  if (encoding && encoding !== 'identity') return undefined;
  const length = Number(response.headers.get('Content-Length') ?? NaN);
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined;
}
