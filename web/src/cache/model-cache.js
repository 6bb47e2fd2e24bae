// Downloaded model files kept in the Cache API (browsers), keyed by URL and
// validated by size and ETag/Last-Modified. Where there is no Cache API
// (Node) every function here is a silent no-op.

export const CACHE_NAME = 'wasmlm-models-v1';

export function cacheAvailable() {
  return typeof globalThis.caches === 'object' && globalThis.caches !== null && typeof globalThis.caches.open === 'function';
}

/** The cache, or null where there is none (or it cannot be opened, e.g. an opaque origin). */
export async function openModelCache() {
  if (!cacheAvailable()) return null;
  try {
    return await globalThis.caches.open(CACHE_NAME);
  } catch {
    return null;
  }
}

/**
 * Deletes cached model files: the one of `url`, or all of them.
 * Resolves to true if something was deleted.
 * @param {string|URL} [url]
 */
export async function clearCache(url) {
  if (!cacheAvailable()) return false;
  if (url === undefined) return globalThis.caches.delete(CACHE_NAME);
  const cache = await openModelCache();
  return cache ? cache.delete(String(url)) : false;
}

/** The validators of a response: {size, etag, lastModified} (each possibly undefined). */
export function validatorsOf(response, size) {
  return {
    size,
    etag: response.headers.get('ETag') ?? undefined,
    lastModified: response.headers.get('Last-Modified') ?? undefined,
  };
}

/**
 * Whether two validator sets describe the same file: equal sizes, and equal
 * ETags when both have one, else equal Last-Modified dates when both have one.
 */
export function sameEntity(a, b) {
  if (a.size === undefined || a.size !== b.size) return false;
  if (a.etag && b.etag) return a.etag === b.etag;
  if (a.lastModified && b.lastModified) return a.lastModified === b.lastModified;
  return true;
}

/**
 * Starts storing a file under `url` as its bytes arrive, without holding it:
 * write(chunk) in order, then close() (resolves once stored) or abort().
 * Returns null if there is no cache. Storage failures (quota) are ignored:
 * the entry is simply not there next time.
 */
export function startCacheWrite(cache, url, validators, contentType) {
  if (!cache || validators.size === undefined || typeof TransformStream !== 'function') return null;
  const { readable, writable } = new TransformStream();
  const headers = new Headers({ 'Content-Length': String(validators.size) });
  if (validators.etag) headers.set('ETag', validators.etag);
  if (validators.lastModified) headers.set('Last-Modified', validators.lastModified);
  if (contentType) headers.set('Content-Type', contentType);
  let failed = false;
  const stored = cache.put(url, new Response(readable, { status: 200, headers })).catch(() => {
    failed = true;
  });
  const writer = writable.getWriter();
  writer.closed.catch(() => {});
  let written = 0;
  return {
    async write(chunk) {
      if (failed) return;
      await writer.ready; // back-pressure: the cache reads as fast as it stores
      if (failed) return;
      written += chunk.length;
      writer.write(chunk).catch(() => {});
    },
    async close() {
      if (failed) return false;
      if (written !== validators.size) {
        await this.abort();
        await cache.delete(url).catch(() => {});
        return false;
      }
      await writer.close().catch(() => {});
      await stored;
      return !failed;
    },
    async abort() {
      failed = true;
      await writer.abort(new Error('download not finished')).catch(() => {});
      await stored;
    },
  };
}
