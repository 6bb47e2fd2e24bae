// One HTTP request with a read timeout: the request fails when no bytes
// (headers, then body) arrive for `readTimeout` ms. The caller's signal
// still aborts it (ABORTED); a stall aborts only this request, and reads
// of its body then fail with an IO error that says so.
import { WasmLMError, abortedError } from '../errors.js';

export const DEFAULT_READ_TIMEOUT_MS = 60000;

class Watchdog {
  #controller = new AbortController();
  #timer = null;
  #ms;
  timedOut = false;

  constructor(ms, signal) {
    this.#ms = ms;
    this.signal = this.#controller.signal;
    if (signal) {
      if (signal.aborted) this.#controller.abort(signal.reason);
      else signal.addEventListener('abort', () => this.#controller.abort(signal.reason), { once: true });
    }
    this.touch();
  }

  /** Bytes arrived: the timeout starts again. */
  touch() {
    this.stop();
    if (!Number.isFinite(this.#ms)) return;
    this.#timer = setTimeout(() => {
      this.timedOut = true;
      this.#controller.abort(new Error('read timeout'));
    }, this.#ms);
    // A pending timer must not keep a Node process alive by itself.
    this.#timer.unref?.();
  }

  stop() {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }
}

/**
 * An error and what caused it, as one line: Node's fetch() says only "fetch
 * failed" and keeps why (connect ECONNREFUSED 127.0.0.1:9, a DNS failure, a
 * bad certificate) in error.cause.
 */
export function describeCause(error) {
  const parts = [];
  for (let e = error, depth = 0; e != null && depth < 4; e = e.cause, depth++) {
    const text = String(e?.message ?? e).replace(/\s+/g, ' ').trim();
    if (text && !parts.some((p) => p.includes(text))) parts.push(text);
  }
  return parts.join(': ') || 'unknown error';
}

/**
 * fetch() with a read timeout. Resolves to the response whose status is one
 * of `accept`, with `read(reader)`: reader.read() under the same timeout.
 * @param {typeof fetch} fetchFn
 * @param {string} href
 * @param {{headers?: object, signal?: AbortSignal, readTimeout?: number, accept: number[]}} options
 */
export async function httpRequest(fetchFn, href, { headers = {}, signal, readTimeout = DEFAULT_READ_TIMEOUT_MS, accept }) {
  const dog = new Watchdog(readTimeout, signal);
  const failure = (cause, what) => {
    dog.stop();
    if (signal?.aborted) return abortedError(signal);
    if (dog.timedOut) {
      return new WasmLMError('IO', `${href}: no bytes for ${readTimeout / 1000} s while ${what}; gave up on this request`, { cause });
    }
    return new WasmLMError('IO', `${what} ${href}: ${describeCause(cause)}`, { cause });
  };
  let response;
  try {
    response = await fetchFn(href, { headers, signal: dog.signal });
  } catch (cause) {
    throw failure(cause, 'cannot fetch');
  }
  dog.touch();
  if (!accept.includes(response.status)) {
    dog.stop();
    await response.body?.cancel().catch(() => {});
    throw new WasmLMError('IO', `HTTP ${response.status} ${response.statusText} for ${href}`.trimEnd());
  }
  return {
    response,
    /** reader.read() of this response's body, under the read timeout. */
    async read(reader) {
      try {
        const result = await reader.read();
        if (result.done) dog.stop();
        else dog.touch();
        return result;
      } catch (cause) {
        throw failure(cause, 'reading');
      }
    },
    /** The whole body, under the read timeout. */
    async bytes() {
      if (!response.body) return new Uint8Array(0);
      const reader = response.body.getReader();
      const parts = [];
      let length = 0;
      for (;;) {
        const { done, value } = await this.read(reader);
        if (done) break;
        parts.push(value);
        length += value.length;
      }
      if (parts.length === 1) return parts[0];
      const out = new Uint8Array(length);
      let at = 0;
      for (const part of parts) {
        out.set(part, at);
        at += part.length;
      }
      return out;
    },
    stop: () => dog.stop(),
  };
}
