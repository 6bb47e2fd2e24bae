// The package in headless Chromium: module Workers on plain and
// cross-origin-isolated pages, and the inspect page end to end.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, describeWithChromium } from '../js/helpers/chromium.js';
import { startTestServer } from '../js/helpers/serve.js';
import { RWKV_5V2_FP32, STORIES_GGUF, testdataPath } from '../js/helpers/testdata.js';

const TIMEOUT = 60_000;
const ARTIFACTS = path.resolve('tests/.tmp/artifacts'); // screenshots

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

  // llama.cpp's greedy continuation of "Once upon a time" on stories260K.
  const storiesGreedyText = () => JSON.parse(fs.readFileSync(testdataPath('llama/stories260K/reference/reference-outputs.json'), 'utf8'))
    .find((r) => r.file === 'stories260K.gguf').result.greedy_text;

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

  test.each([['plain', 'single-threaded'], ['isolated', 'pthreads']])('loadModel() on a %s page runs the %s build in a worker and generates llama.cpp\'s greedy text', async (kind, build) => {
    const server = kind === 'plain' ? plain : isolated;
    await page.goto(`${server.url}/tests/browser/fixtures/blank.html`);
    const result = await page.evaluate(async (url) => {
      const { loadModel } = await import('/web/src/index.js');
      const lm = await loadModel(url, { contextLength: 128 });
      let text = '';
      for await (const piece of lm.generate([1, 403, 407, 261, 378], { temperature: 0, maxTokens: 32, ignoreEos: true })) text += piece.text;
      const chat = await lm.chat([{ role: 'user', content: 'hi' }]).next().catch((e) => e.code);
      const info = lm.info;
      await lm.dispose();
      return { text, build: info.build, chat };
    }, `/testdata/${STORIES_GGUF}`);
    expect(result.build).toBe(build);
    expect(result.chat).toBe('UNSUPPORTED');
    expect(result.text).toBe(storiesGreedyText());
  }, TIMEOUT);

  // Chromium validates relaxed SIMD, so it gets the relaxed copy of the
  // build; its kernels give the same bits as the SIMD-128 ones Node runs.
  // There (x86 with AVX-VNNI, as the CI machines) the dot-add is one
  // instruction, so the Q4_0, Q4_K and Q5_K matrices are repacked into row
  // quads on load, token_embd (looked up by rows) excepted; in Node they stay
  // in rows.
  test.each([['a plain', 'single-threaded'], ['an isolated', 'pthreads']])('on %s page the relaxed-SIMD %s build generates the greedy tokens of the SIMD-128 engine in Node (K-quant and 4-bit files; Q4_0, Q4_K and Q5_K in row quads)', async (kind, build) => {
    const { inspect, openModel, releaseWasmModules, relaxedSimdAvailable } = await import('../../web/src/index.js');
    expect(relaxedSimdAvailable()).toBe(false); // Node 20 without --experimental-wasm-relaxed-simd
    const files = ['synth-kq/synth-kq-pure-Q4_K.gguf', 'synth-kq/synth-kq-pure-Q5_K.gguf', 'synth-kq/synth-kq-Q6_K.gguf', 'synth-kq/synth-kq-pure-Q4_0.gguf'];
    const prompt = [1, 403, 407, 261, 378];
    const expected = [];
    for (const file of files) {
      const model = await openModel(testdataPath(file), { contextLength: 64 });
      const { tokens } = await model.complete(prompt, { temperature: 0, maxTokens: 16, ignoreEos: true });
      expect(model.describe().rowQuads).toBe(0);
      model.dispose();
      const matrices = (await inspect(testdataPath(file))).tensors.filter((t) => ['Q4_0', 'Q4_K', 'Q5_K'].includes(t.type)
        && /^(output|blk\.\d+\.(attn_(q|k|v|qkv|output)|ffn_(gate|up|down)))\.weight$/.test(t.name));
      expected.push({ tokens, rowQuads: matrices.length });
    }
    expect(expected.map((e) => e.rowQuads)).toEqual([1 + 7 * 2, 1 + 7 * 2, 0, 1 + 7 * 2]); // output and the 7 matrices of both layers
    await releaseWasmModules();
    await page.goto(`${(kind === 'a plain' ? plain : isolated).url}/tests/browser/fixtures/blank.html`);
    const results = await page.evaluate(async ({ urls, prompt }) => {
      const { loadModel } = await import('/web/src/index.js');
      const out = [];
      for (const url of urls) {
        const lm = await loadModel(url, { contextLength: 64 });
        const { tokens } = await lm.complete(prompt, { temperature: 0, maxTokens: 16, ignoreEos: true });
        out.push({ tokens, rowQuads: lm.info.rowQuads, simd: lm.info.simd, build: lm.info.build });
        await lm.dispose();
      }
      return out;
    }, { urls: files.map((f) => `/testdata/${f}`), prompt });
    results.forEach((r, i) => {
      expect(r).toEqual({ ...expected[i], simd: 'relaxed', build });
      expect(r.tokens).toHaveLength(16);
    });
  }, TIMEOUT);

  // Greedy generation on the demo page (a model loaded): the output's text.
  async function generateOnDemo(prompt, maxTokens) {
    await page.click('#settings summary');
    await page.fill('#temperature', '0');
    await page.fill('#max-tokens', String(maxTokens));
    await page.fill('#prompt', prompt);
    await page.click('#generate');
    await page.waitForFunction(() => document.querySelector('#speed').textContent.includes('generated'), null, { timeout: TIMEOUT });
    return page.textContent('#output');
  }
  test('the demo page loads stories260K with a progress bar and streams llama.cpp\'s greedy text', async () => {
    await page.goto(`${isolated.url}/web/pages/demo.html`);
    await page.waitForFunction(() => document.querySelector('#url').value !== '');
    await page.click('#load');
    await page.waitForFunction(() => document.querySelector('#status').textContent === 'Ready.', null, { timeout: TIMEOUT });
    expect(await page.textContent('#model-info')).toContain('pthreads build');
    expect(await generateOnDemo('Once upon a time', 32)).toBe(`Once upon a time${storiesGreedyText()}`);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'demo.png'), fullPage: true });
  }, TIMEOUT);

  test('the demo page runs a tiny RWKV file end to end (the same greedy text as the engine in Node)', async () => {
    const file = 'rwkv/tiny-rwkv-7v0-834K-FP32.bin';
    const { openModel, releaseWasmModules } = await import('../../web/src/index.js');
    const model = await openModel(testdataPath(file));
    const expected = await model.complete('in', { temperature: 0, maxTokens: 24, ignoreEos: true });
    model.dispose();
    await releaseWasmModules();
    await page.goto(`${isolated.url}/web/pages/demo.html`);
    await page.waitForFunction(() => document.querySelector('#url').value !== '');
    await page.fill('#url', `/testdata/${file}`);
    await page.click('#load');
    await page.waitForFunction(() => document.querySelector('#status').textContent === 'Ready.', null, { timeout: TIMEOUT });
    expect(await page.textContent('#model-info')).toMatch(/rwkv/i);
    expect(expected.text.length).toBeGreaterThan(0);
    expect(await generateOnDemo('in', 24)).toBe(`in${expected.text}`);
  }, TIMEOUT);

  test('the demo page chats with a Qwen3 file through its chat template', async () => {
    const { ensureChatModel } = await import('../models/decoder-models.js');
    const { TESTDATA } = await import('../js/helpers/testdata.js');
    const { renderChat } = await import('../../web/src/worker/chat-template.js');
    const { openModel, releaseWasmModules } = await import('../../web/src/index.js');
    const file = ensureChatModel('qwen3-chat', TESTDATA);
    // The prompt the template makes of the conversation, and the greedy reply, in Node.
    const model = await openModel(file, { contextLength: 256 });
    const template = model.describe().metadata['tokenizer.chat_template'];
    const rendered = await renderChat(template, [{ role: 'user', content: 'Hello there!' }], { eosToken: '<|im_end|>' });
    const expected = await model.complete(rendered, { temperature: 0, maxTokens: 8, parseSpecial: true });
    model.dispose();
    await releaseWasmModules();
    expect(rendered).toBe('<|im_start|>user\nHello there!<|im_end|>\n<|im_start|>assistant\n');
    await page.goto(`${isolated.url}/web/pages/demo.html`);
    await page.setInputFiles('#file', file);
    await page.waitForFunction(() => document.querySelector('#status').textContent === 'Ready.', null, { timeout: TIMEOUT });
    expect(await page.textContent('#model-info')).toMatch(/qwen3/);
    expect(await page.isDisabled('#chat-mode')).toBe(false);
    await page.check('#chat-mode');
    await page.click('#settings summary');
    await page.fill('#temperature', '0');
    await page.fill('#max-tokens', '8');
    await page.fill('#chat-input', 'Hello there!');
    await page.click('#send');
    await page.waitForFunction(() => !document.querySelector('#regenerate').disabled, null, { timeout: TIMEOUT });
    expect(await page.locator('#chat-log li .text').allTextContents()).toEqual(['Hello there!', expected.text]);
    expect(await page.textContent('#chat-log .assistant .speed')).toMatch(new RegExp(`^8 tokens generated .* ${expected.promptTokens} prompt tokens`));
  }, TIMEOUT);

  test('a URL on a server without Range support is streamed instead', async () => {
    await page.goto(`${noRange.url}/tests/browser/fixtures/blank.html`);
    const report = await probe(page, { threads: 1, url: `/testdata/${RWKV_5V2_FP32}` });
    expect(report).toMatchObject({ ok: true, url: { format: 'rwkv-bin', version: 101, tensors: 270 } });
  }, TIMEOUT);

  test('the index page inspects the default test model and shows its 48 tensors', async () => {
    await page.goto(`${isolated.url}/web/pages/index.html`);
    await expect(page.title()).resolves.toBe('wasmlm model viewer');
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

  test('the index page tells how a Gemma 3 file runs: its norms, window, RoPE and KV cache', async () => {
    await page.goto(`${isolated.url}/web/pages/index.html`);
    const { ensureDecoderModel } = await import('../models/decoder-models.js');
    const { TESTDATA } = await import('../js/helpers/testdata.js');
    await page.setInputFiles('#file', ensureDecoderModel('gemma3', 'Q8_0', TESTDATA));
    await page.waitForFunction(() => !document.querySelector('#decoder-section').hidden);
    const text = await page.locator('#decoder').innerText();
    expect(text).toMatch(/architecture\s+gemma3 \(Gemma 3/);
    expect(text).toMatch(/norms\s+RMS norm before and after attention and FFN/);
    expect(text).toMatch(/sliding window\s+8 positions in 10 of 12 layers/);
    expect(text).toMatch(/rope\s+neox, 64 of 64 dims, base 1000000, scale 1\/8, windowed layers: base 10000/);
    expect(text).toMatch(/feed-forward\s+GeGLU \(tanh\)/);
    expect(text).toMatch(/kv cache \(f16\)\s+3\.00 KiB per position; windowed layers keep at most 264/);
    expect(await page.locator('#architecture').innerText()).not.toMatch(/object Object/);
  }, TIMEOUT);

  // Drops a File built in the page from fetched bytes (optionally cut short or patched) on the viewer.
  async function dropOnViewer(url, { cut, patch } = {}) {
    await page.evaluate(async ({ url, cut, patch }) => {
      const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer()).slice(0, cut);
      for (const [at, value] of Object.entries(patch ?? {})) bytes[at] = value;
      const dataTransfer = new DataTransfer();
      dataTransfer.items.add(new File([bytes], url.split('/').pop()));
      document.querySelector('#drop-zone').dispatchEvent(new DragEvent('drop', { dataTransfer, bubbles: true, cancelable: true }));
    }, { url, cut, patch });
  }
  const tensorColumn = (n) => page.$$eval('#tensors tbody tr:not([hidden])', (rows, n) => rows.map((r) => r.cells[n].textContent), n);
  const number = (text) => Number(text.replace(/,/g, ''));

  test('the index page viewer lists a dropped PyTorch checkpoint\'s tensors with dtype, shape and strides', async () => {
    await page.goto(`${isolated.url}/web/pages/index.html`);
    await dropOnViewer('/testdata/pytorch/candle/fortran_tensor_3d.pth');
    await page.waitForFunction(() => document.querySelectorAll('#tensors tbody tr').length > 0);
    expect(await page.locator('#tensors tbody tr').first().innerText()).toMatch(/tensor_fortran\s+I64\s+2 × 3 × 4 \(stride 1, 2, 6\)\s+192/);
    expect(await page.locator('#file-info').innerText()).toMatch(/PyTorch zip/);
    await dropOnViewer('/testdata/pytorch/meta-stories260K/legacy-f32/consolidated.00.pth');
    await page.waitForFunction(() => document.querySelectorAll('#tensors tbody tr').length === 48);
    expect(await page.locator('#file-info').innerText()).toMatch(/PyTorch legacy pickle/);
  }, TIMEOUT);

  test('the index page viewer lists a dropped Meta checkpoint\'s files: params.json, both shards\' tensors, a shard tensor\'s histogram', async () => {
    await page.goto(`${isolated.url}/web/pages/index.html`);
    await page.evaluate(async (base) => {
      const dataTransfer = new DataTransfer();
      for (const name of ['consolidated.01.pth', 'params.json', 'tokenizer.model', 'consolidated.00.pth']) {
        dataTransfer.items.add(new File([await (await fetch(`${base}/${name}`)).arrayBuffer()], name));
      }
      document.querySelector('#drop-zone').dispatchEvent(new DragEvent('drop', { dataTransfer, bubbles: true, cancelable: true }));
    }, '/testdata/pytorch/meta-stories260K/mp2-f32');
    await page.waitForFunction(() => document.querySelectorAll('#tensors tbody tr').length === 96);
    const info = await page.locator('#file-info').innerText();
    expect(info).toMatch(/Meta LLaMA checkpoint/);
    expect(info).toMatch(/consolidated\.00\.pth \(48 tensors, pickle protocol 2\), consolidated\.01\.pth/);
    expect(await page.locator('#architecture').innerText()).toMatch(/n_layers\s+5/);
    const row = page.locator('#tensors tbody tr', { hasText: 'layers.4.feed_forward.w2.weight (shard 1)' });
    expect(await row.innerText()).toMatch(/F32\s+64 × 86\s+22,016/);
    await row.click();
    await page.waitForFunction(() => document.querySelectorAll('#histogram-chart rect').length > 0, null, { timeout: TIMEOUT });
    const counts = await page.$$eval('#histogram-chart rect', (rects) => rects.map((r) => Number(r.dataset.count)));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(64 * 86);
  }, TIMEOUT);

  test('the demo page runs a Meta checkpoint\'s dropped files (stories260K, two shards): llama.cpp\'s greedy text', async () => {
    await page.goto(`${isolated.url}/web/pages/demo.html`);
    const dropFolderFiles = () => page.evaluate(async (base) => {
      const dataTransfer = new DataTransfer();
      for (const name of ['params.json', 'consolidated.00.pth', 'consolidated.01.pth', 'tokenizer.model']) {
        dataTransfer.items.add(new File([await (await fetch(`${base}/${name}`)).arrayBuffer()], name));
      }
      document.querySelector('#drop-zone').dispatchEvent(new DragEvent('drop', { dataTransfer, bubbles: true, cancelable: true }));
    }, '/testdata/pytorch/meta-stories260K/mp2-f32');
    await dropFolderFiles();
    await page.waitForFunction(() => /Ready|Cannot/.test(document.querySelector('#status').textContent), null, { timeout: TIMEOUT });
    expect(await page.textContent('#status')).toBe('Ready.');
    expect(await page.textContent('#model-info')).toMatch(/4 files .*llama/);
    expect(await generateOnDemo('Once upon a time', 32)).toBe(`Once upon a time${storiesGreedyText()}`);
    await page.selectOption('#quantize', 'Q8_0');
    await dropFolderFiles();
    await page.waitForFunction(() => document.querySelector('#model-info').textContent.includes('Q8_0'), null, { timeout: TIMEOUT });
    expect(await page.textContent('#status')).toBe('Ready.');
  }, TIMEOUT);

  test('the index page viewer shows a dropped file\'s tensor table, sorts it by a clicked header and filters it', async () => {
    await page.goto(`${isolated.url}/web/pages/index.html`);
    await dropOnViewer(`/testdata/${STORIES_GGUF}`);
    await page.waitForFunction(() => document.querySelectorAll('#tensors tbody tr').length > 0);
    expect(await page.locator('#status').innerText()).toMatch(/stories260K\.gguf: GGUF v3, 48 tensors/);
    expect(await page.locator('#tensors tbody tr').first().innerText()).toMatch(/^token_embd\.weight\s+F32\s+64 × 512\s+131,072\s+[\d,]+$/);
    expect(await page.locator('#file-info').innerText()).toMatch(/tensors\s+48/);
    expect(await page.locator('#type-chart').innerText()).toMatch(/F32\s+100\.0%\s+48\s+/);

    await page.click('#tensors th button[data-key="nbytes"]');
    const ascending = (await tensorColumn(3)).map(number);
    expect(ascending).toHaveLength(48);
    expect(ascending).toEqual([...ascending].sort((a, b) => a - b));
    expect(await page.getAttribute('#tensors th:nth-child(4)', 'aria-sort')).toBe('ascending');
    await page.click('#tensors th button[data-key="nbytes"]');
    expect((await tensorColumn(0))[0]).toBe('token_embd.weight');
    expect(await page.getAttribute('#tensors th:nth-child(4)', 'aria-sort')).toBe('descending');
    await page.click('#tensors th button[data-key="offset"]');
    const offsets = (await tensorColumn(4)).map(number);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    await page.click('#tensors th button[data-key="name"]');
    const names = await tensorColumn(0);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, 'en', { numeric: true })));

    await page.fill('#tensor-filter', 'blk.3.');
    const filtered = await tensorColumn(0);
    expect(filtered).toHaveLength(9);
    expect(filtered.every((name) => name.startsWith('blk.3.'))).toBe(true);
    expect(await page.locator('#tensor-count').innerText()).toBe('9 of 48 tensors');
    await page.fill('#tensor-filter', 'norm f32');
    expect(await tensorColumn(0)).toHaveLength(11);
    await page.fill('#tensor-filter', '');
    expect(await tensorColumn(0)).toHaveLength(48);
  }, TIMEOUT);

  test('the index page viewer searches the metadata by key and by value, with long arrays collapsed', async () => {
    await page.goto(`${isolated.url}/web/pages/index.html`);
    await dropOnViewer(`/testdata/${STORIES_GGUF}`);
    await page.waitForFunction(() => document.querySelectorAll('#metadata tbody tr').length > 0);
    const visibleKeys = () => page.$$eval('#metadata tbody tr:not([hidden]) th', (cells) => cells.map((c) => c.textContent));
    const tokens = page.locator('#metadata tbody tr', { hasText: 'tokenizer.ggml.tokens' });
    expect(await tokens.locator('summary').innerText()).toMatch(/^\[string × 512\] "<unk>", "<s>", "<\/s>", .*, …$/);
    expect(await tokens.locator('li').count()).toBe(0); // listed only when opened
    await tokens.locator('summary').click();
    await tokens.locator('li').last().waitFor(); // the toggle event comes a task later
    expect(await tokens.locator('li').count()).toBe(512);

    await page.fill('#metadata-search', 'HEAD_COUNT');
    expect(await visibleKeys()).toEqual(['llama.attention.head_count', 'llama.attention.head_count_kv']);
    await page.fill('#metadata-search', '▁th'); // a token: matches inside the collapsed array
    expect(await visibleKeys()).toEqual(['tokenizer.ggml.tokens']);
    expect(await page.locator('#metadata-count').innerText()).toMatch(/^1 of \d+ keys$/);
    await page.fill('#metadata-search', 'no such thing');
    expect(await visibleKeys()).toEqual([]);

    expect(await page.locator('#tokenizer').innerText()).toMatch(/model\s+llama\s+size\s+512[\s\S]*bos\s+1 "<s>"\s+eos\s+2 "<\/s>"/);
    expect(await page.locator('#tokenizer ul.tokens li').count()).toBe(16);
  }, TIMEOUT);

  test('the index page viewer sorts by type and by size from the keyboard, and shows a .pt/.pth tensor\'s histogram', async () => {
    await page.goto(`${isolated.url}/web/pages/index.html`);
    await dropOnViewer('/testdata/pytorch/burn/mixed_types.pt');
    await page.waitForFunction(() => document.querySelectorAll('#tensors tbody tr').length === 4);
    const sortOf = (n) => page.getAttribute(`#tensors th:nth-child(${n})`, 'aria-sort');
    await page.focus('#tensor-filter');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab'); // the header buttons come after the search box
    expect(await page.evaluate(() => [document.activeElement.tagName, document.activeElement.dataset.key])).toEqual(['BUTTON', 'type']);
    await page.keyboard.press('Enter');
    expect(await tensorColumn(1)).toEqual(['BOOL', 'F32', 'F64', 'I64']);
    expect(await sortOf(2)).toBe('ascending');
    await page.keyboard.press('Enter');
    expect(await tensorColumn(1)).toEqual(['I64', 'F64', 'F32', 'BOOL']);
    expect(await sortOf(2)).toBe('descending');
    for (const _ of ['shape', 'bytes']) await page.keyboard.press('Tab');
    await page.keyboard.press(' ');
    expect((await tensorColumn(3)).map(number)).toEqual([2, 8, 16, 16]);
    expect([await sortOf(4), await sortOf(2)]).toEqual(['ascending', null]);

    const histogramOf = async (name) => {
      await page.click(`#tensors tbody tr:has-text("${name}")`);
      await page.waitForFunction((name) => document.querySelector('#h-histogram').textContent === `Values of ${name}`
        && /^All|error/.test(document.querySelector('#histogram-status').textContent + document.querySelector('#histogram-status').className), name, { timeout: TIMEOUT });
      expect(await page.locator('#histogram-status').innerText()).toMatch(/^All [\d,]+ values/);
      return (await page.$$eval('#histogram-chart rect', (rects) => rects.map((r) => Number(r.dataset.count)))).reduce((a, b) => a + b, 0);
    };
    expect(await histogramOf('float64')).toBe(2);
    expect(await histogramOf('int64')).toBe(2);
    await dropOnViewer('/testdata/pytorch/burn/float32.pt');
    await page.waitForFunction(() => document.querySelectorAll('#tensors tbody tr').length === 1);
    expect(await histogramOf('tensor')).toBe(4);
    expect(await page.locator('#histogram-stats').innerText()).toMatch(/values\s+4\s+min\s+/);
    await dropOnViewer('/testdata/pytorch/meta-stories260K/f32/consolidated.00.pth');
    await page.waitForFunction(() => document.querySelectorAll('#tensors tbody tr').length === 48);
    expect(await histogramOf('tok_embeddings.weight')).toBe(512 * 64);
  }, TIMEOUT);

  test('the index page viewer copies a metadata value (a collapsed array as JSON, a long string whole) and a tensor name', async () => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: isolated.url });
    await page.goto(`${isolated.url}/web/pages/index.html`);
    await dropOnViewer(`/testdata/${STORIES_GGUF}`);
    await page.waitForFunction(() => document.querySelectorAll('#metadata tbody tr').length > 0);
    const clipboard = () => page.evaluate(() => navigator.clipboard.readText());
    const copyTokens = page.getByRole('button', { name: 'Copy the value of tokenizer.ggml.tokens' });
    await copyTokens.click();
    await page.waitForSelector('#metadata button.copy-value.copied');
    const tokens = JSON.parse(await clipboard());
    expect(tokens).toHaveLength(512);
    expect(tokens.slice(0, 3)).toEqual(['<unk>', '<s>', '</s>']);
    expect(await copyTokens.evaluate((b) => getComputedStyle(b, '::before').content)).toBe('"Copied"');
    expect(await page.locator('#copy-status').innerText()).toBe('Copied the value of tokenizer.ggml.tokens');
    expect(await page.locator('#metadata tbody tr', { hasText: 'tokenizer.ggml.tokens' }).locator('li').count()).toBe(0); // still collapsed

    await page.getByRole('button', { name: 'Copy the value of general.architecture' }).click();
    await page.waitForFunction(() => document.querySelector('#copy-status').textContent.endsWith('general.architecture'));
    expect(await clipboard()).toBe('llama');
    await page.getByRole('button', { name: 'Copy the value of tokenizer.ggml.scores' }).click();
    await page.waitForFunction(() => document.querySelector('#copy-status').textContent.endsWith('tokenizer.ggml.scores'));
    expect(JSON.parse(await clipboard())).toHaveLength(512);

    // A tensor name, by mouse and by keyboard: copied, and no histogram opened.
    await page.getByRole('button', { name: 'Copy the name blk.0.ffn_norm.weight' }).click();
    await page.waitForFunction(() => document.querySelector('#copy-status').textContent.endsWith('blk.0.ffn_norm.weight'));
    expect(await clipboard()).toBe('blk.0.ffn_norm.weight');
    await page.focus('#tensors button.copy-value[aria-label="Copy the name output.weight"]');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('#copy-status').textContent.endsWith('output.weight'));
    expect(await clipboard()).toBe('output.weight');
    expect(await page.locator('#histogram').isHidden()).toBe(true);
    expect(await tensorColumn(0)).toContain('output.weight'); // the button adds no text to the cell

    // A long string (a chat template): shortened, all of it one click away, copied whole.
    const { ensureChatModel } = await import('../models/decoder-models.js');
    const { TESTDATA } = await import('../js/helpers/testdata.js');
    await page.setInputFiles('#file', ensureChatModel('qwen3-chat', TESTDATA));
    await page.waitForFunction(() => document.querySelector('#status').textContent.includes('qwen3'), null, { timeout: TIMEOUT });
    const template = page.locator('#metadata tbody tr', { hasText: 'tokenizer.chat_template' });
    const summary = await template.locator('summary').innerText();
    expect(summary).toMatch(/^[\d,]+ characters: \{%- if tools %\}.*…$/s);
    expect(summary.length).toBeLessThan(120);
    const length = number(summary.split(' ')[0]);
    await template.locator('summary').click();
    expect(await template.locator('pre').evaluate((pre) => pre.textContent.length)).toBe(length);
    await page.getByRole('button', { name: 'Copy the value of tokenizer.chat_template' }).click();
    await page.waitForFunction(() => document.querySelector('#copy-status').textContent.endsWith('tokenizer.chat_template'));
    expect(await clipboard()).toBe(await template.locator('pre').textContent());
  }, TIMEOUT);

  test('the index page viewer shows a histogram of a clicked tensor whose counts sum to its element count', async () => {
    await page.setViewportSize({ width: 1100, height: 900 });
    await page.goto(`${isolated.url}/web/pages/index.html`);
    await dropOnViewer(`/testdata/${STORIES_GGUF}`);
    await page.waitForFunction(() => document.querySelectorAll('#tensors tbody tr').length > 0);
    await page.click('#tensors tbody tr:has-text("token_embd.weight")');
    await page.waitForSelector('#histogram-chart rect');
    const counts = await page.$$eval('#histogram-chart rect', (rects) => rects.map((r) => Number(r.dataset.count)));
    expect(counts.length).toBeGreaterThan(10);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(64 * 512);
    expect(await page.locator('#histogram-status').innerText()).toMatch(/^All 32,768 values/);
    expect(await page.locator('#histogram-stats').innerText()).toMatch(/values\s+32,768\s+min\s+-1\.2\d+\s+max\s+1\.3\d+/);
    expect(await page.locator('#tensors tbody tr.selected').innerText()).toMatch(/^token_embd\.weight/);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'viewer.png'), fullPage: true });

    await page.focus('#tensors tbody tr:has-text("blk.0.ffn_norm.weight")'); // the keyboard works too
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('#h-histogram').textContent.includes('blk.0.ffn_norm.weight')
      && document.querySelector('#histogram-status').textContent.startsWith('All'));
    const normCounts = await page.$$eval('#histogram-chart rect', (rects) => rects.map((r) => Number(r.dataset.count)));
    expect(normCounts.reduce((a, b) => a + b, 0)).toBe(64);
  }, TIMEOUT);

  test('the index page viewer shows an error, not a blank page, for a corrupt or truncated file', async () => {
    await page.goto(`${isolated.url}/web/pages/index.html`);
    await dropOnViewer(`/testdata/${STORIES_GGUF}`, { cut: 40000, patch: { 20: 0xff } }); // metadata count 2^40
    await page.waitForSelector('#status.error');
    expect(await page.locator('#status').innerText()).toMatch(/^stories260K\.gguf: TOO_LARGE at byte 16: expected at most \d+ metadata entries/);
    expect(await page.locator('#result').isHidden()).toBe(true);

    await dropOnViewer(`/testdata/${STORIES_GGUF}`);
    await page.waitForSelector('#result:not([hidden])');
    await dropOnViewer(`/testdata/${STORIES_GGUF}`, { cut: 2000 });
    await page.waitForSelector('#status.error');
    expect(await page.locator('#status').innerText()).toMatch(/TRUNCATED at byte 61: array of 512 string elements does not fit/);
    expect(await page.locator('#result').isHidden()).toBe(true);
  }, TIMEOUT);
});
