// Test servers (scripts/serve.js on a free port) and a fetch that counts bytes.
import { startServer } from '../../../scripts/serve.js';
import { REPO_ROOT, TESTDATA } from './testdata.js';

export function startTestServer(options = {}) {
  return startServer({ port: 0, root: REPO_ROOT, testdata: TESTDATA, ...options });
}

/** A fetch that records each request's Range header, status and body bytes read. */
export function countingFetch() {
  const requests = [];
  async function fetchCounting(url, init = {}) {
    const response = await fetch(url, init);
    const record = { url: String(url), range: new Headers(init.headers).get('Range'), status: response.status, bytes: 0 };
    requests.push(record);
    if (!response.body) return response;
    const counter = new TransformStream({
      transform(chunk, controller) {
        record.bytes += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(counter), { status: response.status, headers: response.headers });
  }
  return { fetch: fetchCounting, requests, totalBytes: () => requests.reduce((n, r) => n + r.bytes, 0) };
}
