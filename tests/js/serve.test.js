// scripts/serve.js: the headers, ranges and paths the browser tests rely on.
import http from 'node:http';
import { startServer } from '../../scripts/serve.js';
import { REPO_ROOT } from './helpers/testdata.js';

/** A raw GET (fetch would normalize '..' away). */
function get(server, path, headers = {}) {
  return new Promise((resolve, reject) => {
    http.get(`${server.url}${path}`, { headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

describe('dev server', () => {
  let server;
  let plain;
  beforeAll(async () => {
    server = await startServer({ port: 0, root: REPO_ROOT });
    plain = await startServer({ port: 0, root: REPO_ROOT, range: false, isolation: false });
  });
  afterAll(async () => {
    await server?.close();
    await plain?.close();
  });

  test('sends cross-origin isolation headers and MIME types', async () => {
    const wasm = await get(server, '/web/dist/wasmlm-st.wasm');
    expect(wasm.status).toBe(200);
    expect(wasm.headers['content-type']).toBe('application/wasm');
    expect(wasm.headers['cross-origin-opener-policy']).toBe('same-origin');
    expect(wasm.headers['cross-origin-embedder-policy']).toBe('require-corp');
    expect(wasm.headers['cross-origin-resource-policy']).toBe('same-origin');
    expect((await get(server, '/web/dist/wasmlm-st.mjs')).headers['content-type']).toMatch(/^text\/javascript/);
    expect((await get(server, '/web/src/index.js')).headers['content-type']).toMatch(/^text\/javascript/);
  });

  test('redirects / to the demo page', async () => {
    const res = await get(server, '/');
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/web/pages/demo.html');
  });

  test('answers Range requests with 206, and 416 past the end', async () => {
    const whole = await get(server, '/package.json');
    const part = await get(server, '/package.json', { Range: 'bytes=2-9' });
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 2-9/${whole.body.length}`);
    expect(part.body).toEqual(whole.body.subarray(2, 10));
    const suffix = await get(server, '/package.json', { Range: 'bytes=-5' });
    expect(suffix.body).toEqual(whole.body.subarray(-5));
    const past = await get(server, '/package.json', { Range: `bytes=${whole.body.length}-` });
    expect(past.status).toBe(416);
    expect(past.headers['content-range']).toBe(`bytes */${whole.body.length}`);
  });

  test('with range: false, ignores Range and sends no isolation headers when asked', async () => {
    const res = await get(plain, '/package.json', { Range: 'bytes=2-9' });
    expect(res.status).toBe(200);
    expect(res.headers['accept-ranges']).toBe('none');
    expect(res.headers['cross-origin-opener-policy']).toBeUndefined();
  });

  test('never serves files outside the root, or dotfiles', async () => {
    for (const path of ['/../../etc/passwd', '/%2e%2e/%2e%2e/etc/passwd', '/testdata/../../../etc/passwd', '/.git/config',
      '/web/%00x']) {
      expect([400, 404]).toContain((await get(server, path)).status);
    }
  });
});
