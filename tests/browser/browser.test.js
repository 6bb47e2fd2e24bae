// The package in headless Chromium: module Workers on plain and
// cross-origin-isolated pages, and the inspect page end to end.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startTestServer } from '../js/helpers/serve.js';
import { describeWithTestdata, RWKV_5V2_FP32, STORIES_GGUF } from '../js/helpers/testdata.js';

const CHROMIUM = '/usr/bin/chromium';
const TIMEOUT = 60_000;
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Runs the probe worker on the page and returns its report. */
function probe(page, message) {
  return page.evaluate((msg) => new Promise((resolve, reject) => {
    const worker = new Worker('/tests/browser/fixtures/probe-worker.js', { type: 'module' });
    worker.onmessage = ({ data }) => {
      worker.terminate();
      resolve(data);
    };
    worker.onerror = (event) => reject(new Error(`worker error: ${event.message}`));
    worker.postMessage(msg);
  }), message);
}

function describeWithChromium(name, body) {
  if (fs.existsSync(CHROMIUM)) return describeWithTestdata(name, body);
  if (process.env.CI === 'true') {
    return describe(name, () => test('has Chromium', () => {
      throw new Error(`${CHROMIUM} is missing (scripts/setup.sh installs it)`);
    }));
  }
  console.warn(`SKIPPED "${name}": no ${CHROMIUM}`);
  return describe.skip(name, () => test.skip('needs Chromium', () => {}));
}

describeWithChromium('in Chromium', () => {
  let isolated; // COOP/COEP: crossOriginIsolated pages
  let plain;    // no isolation headers
  let noRange;  // answers 200 to Range requests
  const plainResponses = [];
  let profile;
  let context;
  let page;

  beforeAll(async () => {
    [isolated, plain, noRange] = await Promise.all([
      startTestServer(),
      startTestServer({ isolation: false, onResponse: (entry) => plainResponses.push(entry) }),
      startTestServer({ isolation: false, range: false }),
    ]);
    profile = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmlm-chromium-'));
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
  }, TIMEOUT);

  afterAll(async () => {
    await context?.close();
    await Promise.all([isolated, plain, noRange].map((server) => server?.close()));
    if (profile) fs.rmSync(profile, { recursive: true, force: true });
  }, TIMEOUT);

  test('a module Worker on a plain page gets the single-threaded build and inspects a URL by Range', async () => {
    await page.goto(`${plain.url}/tests/browser/fixtures/blank.html`);
    expect(await page.evaluate(() => self.crossOriginIsolated)).toBe(false);
    const report = await probe(page, {
      threads: 2, // asks for threads; without isolation it must fall back to one
      url: `/testdata/${STORIES_GGUF}`,
      blobUrl: `/testdata/${RWKV_5V2_FP32}`,
    });
    expect(report).toEqual({
      ok: true,
      crossOriginIsolated: false,
      threaded: false,
      threadsRan: 1,
      url: { format: 'gguf', version: 3, tensors: 48 },
      blob: { tensors: 270 },
    });
    const modelReads = plainResponses.filter((r) => r.url === `/testdata/${STORIES_GGUF}`);
    expect(modelReads).toEqual([{ method: 'GET', url: `/testdata/${STORIES_GGUF}`, range: 'bytes=0-65535', status: 206 }]);
  }, TIMEOUT);

  test('the page main thread can load the single-threaded build', async () => {
    await page.goto(`${plain.url}/tests/browser/fixtures/blank.html`);
    const result = await page.evaluate(async () => {
      const { loadWasmModule } = await import('/web/src/index.js');
      const wasm = await loadWasmModule({ threads: 4 }); // never threads on a main thread
      return { threaded: wasm.threadedBuild(), threadsRan: wasm.threadSelfTest(2) };
    });
    expect(result).toEqual({ threaded: false, threadsRan: 1 });
  }, TIMEOUT);

  test('a Worker on a cross-origin-isolated page runs the pthreads build', async () => {
    await page.goto(`${isolated.url}/tests/browser/fixtures/blank.html`);
    expect(await page.evaluate(() => self.crossOriginIsolated)).toBe(true);
    const report = await probe(page, { threads: 2, url: `/testdata/${STORIES_GGUF}` });
    expect(report).toEqual({
      ok: true,
      crossOriginIsolated: true,
      threaded: true,
      threadsRan: 2,
      url: { format: 'gguf', version: 3, tensors: 48 },
    });
  }, TIMEOUT);

  test('a URL on a server without Range support is streamed instead', async () => {
    await page.goto(`${noRange.url}/tests/browser/fixtures/blank.html`);
    const report = await probe(page, { threads: 1, url: `/testdata/${RWKV_5V2_FP32}` });
    expect(report).toMatchObject({ ok: true, url: { format: 'rwkv-bin', version: 101, tensors: 270 } });
  }, TIMEOUT);

  test('the index page inspects the default test model and shows its 48 tensors', async () => {
    await page.goto(`${isolated.url}/`);
    await expect(page.title()).resolves.toBe('wasmlm');
    await page.waitForFunction(() => document.querySelector('#url').value !== '');
    expect(await page.inputValue('#url')).toBe(`/testdata/${STORIES_GGUF}`);
    await page.click('#inspect');
    await page.waitForFunction(() => document.querySelectorAll('#tensors tbody tr').length > 0);
    expect(await page.locator('#tensors tbody tr').count()).toBe(48);
    expect(await page.locator('#tensors tbody tr').first().innerText()).toMatch(/token_embd\.weight\s+F32\s+64 × 512\s+131,072/);
    expect(await page.locator('#architecture').innerText()).toMatch(/head count kv\s+4/);
    expect(await page.locator('#tokenizer').innerText()).toMatch(/size\s+512/);
  }, TIMEOUT);

  test('the index page shows a clear error for a file that is no model', async () => {
    await page.goto(`${isolated.url}/web/pages/index.html`);
    await page.fill('#url', '/web/pages/style.css');
    await page.click('#inspect');
    await page.waitForSelector('#status.error');
    expect(await page.locator('#status').innerText()).toMatch(/BAD_FORMAT at byte 0: expected a GGUF/);
    expect(await page.locator('#result').isHidden()).toBe(true);
  }, TIMEOUT);

  test('the index page inspects a chosen file', async () => {
    await page.goto(`${isolated.url}/web/pages/index.html`);
    const { testdataPath } = await import('../js/helpers/testdata.js');
    await page.setInputFiles('#file', testdataPath(RWKV_5V2_FP32));
    await page.waitForFunction(() => document.querySelectorAll('#tensors tbody tr').length > 0);
    expect(await page.locator('#tensors tbody tr').count()).toBe(270);
    expect(await page.locator('#architecture').innerText()).toMatch(/rwkv version\s+5\.2/);
  }, TIMEOUT);
});
