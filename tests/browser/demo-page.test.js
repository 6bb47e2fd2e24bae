// The demo page in Chromium: a model with its tokenizer file, a load that
// replaces another, and the chat (bubbles, keys, stop, regenerate, copy, clear).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, describeWithChromium } from '../js/helpers/chromium.js';
import { startTestServer } from '../js/helpers/serve.js';
import { STORIES_GGUF, TESTDATA, testdataPath } from '../js/helpers/testdata.js';
import { startSlowServer } from './slow-server.js';

const TIMEOUT = 60_000;
const RWKV_BIN = 'rwkv/tiny-rwkv-4v0-660K-FP16.bin';
const WORLD_VOCAB = 'tokenizers/rwkv-world/rwkv_vocab_v20230424.txt';

describeWithChromium('the demo page in Chromium', () => {
  let server;
  let profile;
  let context;
  let page;
  let smallVocab; // the World vocabulary's first 255 tokens: fits the tiny 256-token RWKV models

  beforeAll(async () => {
    server = await startTestServer();
    profile = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmlm-chromium-'));
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
    const lines = fs.readFileSync(testdataPath(WORLD_VOCAB), 'utf8').split('\n');
    smallVocab = path.join(profile, 'rwkv_vocab_v20230424.txt');
    fs.writeFileSync(smallVocab, `${lines.slice(0, 255).join('\n')}\n`);
  }, TIMEOUT);

  afterAll(async () => {
    await context?.close();
    await server?.close();
    if (profile) fs.rmSync(profile, { recursive: true, force: true });
  }, TIMEOUT);

  const waitForStatus = (pattern) => page.waitForFunction((source) => new RegExp(source).test(document.querySelector('#status').textContent),
    pattern.source, { timeout: TIMEOUT / 2 });
  /** Drops Files made in the page: [name, url, {nVocab}] (nVocab patches an rwkv.cpp header). */
  const dropFiles = (files) => page.evaluate(async (list) => {
    const dataTransfer = new DataTransfer();
    for (const [name, url, patch] of list) {
      const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
      if (patch?.nVocab) new DataView(bytes.buffer).setUint32(8, patch.nVocab, true);
      dataTransfer.items.add(new File([bytes], name));
    }
    document.querySelector('#drop-zone').dispatchEvent(new DragEvent('drop', { dataTransfer, bubbles: true, cancelable: true }));
  }, files);
  async function setSampling({ temperature, maxTokens }) {
    await page.$eval('#settings', (details) => { details.open = true; });
    await page.fill('#temperature', String(temperature));
    await page.fill('#max-tokens', String(maxTokens));
  }

  test('an RWKV .bin chosen with its vocabulary file: the page names their roles and generates with the vocabulary', async () => {
    const { openModel, releaseWasmModules } = await import('../../web/src/index.js');
    const model = await openModel(testdataPath(RWKV_BIN), { tokenizer: smallVocab });
    const expected = await model.complete('Hi', { temperature: 0, maxTokens: 8 });
    model.dispose();
    await releaseWasmModules();
    expect(expected.tokens.length).toBeGreaterThan(0);

    await page.goto(`${server.url}/web/pages/demo.html`);
    await page.setInputFiles('#file', [testdataPath(RWKV_BIN), smallVocab]);
    await waitForStatus(/Ready|Cannot/);
    expect(await page.textContent('#status')).toBe('Ready.');
    const roles = await page.locator('#file-roles li').allInnerTexts();
    expect(roles).toEqual(['tiny-rwkv-4v0-660K-FP16.bin — model (rwkv.cpp)', 'rwkv_vocab_v20230424.txt — tokenizer (RWKV World vocabulary)']);
    await setSampling({ temperature: 0, maxTokens: 8 });
    await page.fill('#prompt', 'Hi');
    await page.click('#generate');
    await page.waitForFunction(() => document.querySelector('#speed').textContent.includes('generated'), null, { timeout: TIMEOUT });
    expect(await page.textContent('#output')).toBe(`Hi${expected.text}`);
  }, TIMEOUT);

  test('a model URL with a tokenizer URL loads the model with that vocabulary', async () => {
    await page.goto(`${server.url}/web/pages/demo.html`);
    await page.waitForFunction(() => document.querySelector('#url').value !== '');
    const vocabUrl = await page.evaluate(async (text) => URL.createObjectURL(new Blob([text])), fs.readFileSync(smallVocab, 'utf8'));
    await page.fill('#url', `/testdata/${RWKV_BIN}`);
    await page.fill('#tokenizer-url', vocabUrl);
    await page.click('#load');
    await waitForStatus(/Ready|Cannot/);
    expect(await page.textContent('#status')).toBe('Ready.');
    expect(await page.evaluate(() => window.demo.lm.tokenize('Hi'))).toEqual([0x48 + 1, 0x69 + 1]); // the World ids, not bytes
  }, TIMEOUT);

  test('a dropped RWKV .bin with a vocabulary too large for it is refused with the engine\'s reason', async () => {
    await page.goto(`${server.url}/web/pages/demo.html`);
    await dropFiles([['tiny.bin', `/testdata/${RWKV_BIN}`], ['rwkv_vocab_v20230424.txt', `/testdata/${WORLD_VOCAB}`]]);
    await waitForStatus(/Ready|Cannot/);
    expect(await page.textContent('#status')).toMatch(/^Cannot load 2 files .*tokenizer has 65530 tokens, the model only 256/);
    expect(await page.isHidden('#session')).toBe(true);
  }, TIMEOUT);

  test('an RWKV .bin without a vocabulary, or a vocabulary alone, is explained, not loaded', async () => {
    await page.goto(`${server.url}/web/pages/demo.html`);
    await dropFiles([['RWKV-x060-World-1B6.bin', `/testdata/${RWKV_BIN}`, { nVocab: 65536 }]]);
    await page.waitForSelector('#status.error');
    expect(await page.textContent('#status')).toBe('RWKV-x060-World-1B6.bin has no vocabulary (an RWKV .bin only holds weights for 65536 tokens): '
      + 'choose or drop it together with its tokenizer file, rwkv_vocab_v20230424.txt (RWKV World models) or 20B_tokenizer.json (RWKV v4 Pile models).');
    expect(await page.locator('#file-roles li').allInnerTexts()).toEqual(['RWKV-x060-World-1B6.bin — model (rwkv.cpp)']);
    expect(await page.isHidden('#progress')).toBe(true);
    await dropFiles([['20B_tokenizer.json', `/testdata/${RWKV_BIN}`]]);
    await page.waitForFunction(() => document.querySelector('#status').textContent.startsWith('That is a tokenizer only'));
    expect(await page.locator('#file-roles li').allInnerTexts()).toEqual(['20B_tokenizer.json — tokenizer (tokenizer.json)']);
    // The tiny models' 256 tokens are bytes: alone they run.
    await dropFiles([['tiny.bin', `/testdata/${RWKV_BIN}`]]);
    await waitForStatus(/Ready|Cannot/);
    expect(await page.textContent('#status')).toBe('Ready.');
    expect(await page.locator('#file-roles li').allInnerTexts()).toEqual(['tiny.bin — model (rwkv.cpp)',
      '(no tokenizer file) — byte-level vocabulary: the model\'s 256 tokens are bytes']);
  }, TIMEOUT);

  test('a Meta checkpoint\'s files show their roles; without tokenizer.model the page says what is missing', async () => {
    await page.goto(`${server.url}/web/pages/demo.html`);
    const base = '/testdata/pytorch/meta-stories260K/mp2-f32';
    await dropFiles(['params.json', 'consolidated.00.pth', 'consolidated.01.pth'].map((name) => [name, `${base}/${name}`]));
    await page.waitForSelector('#status.error');
    expect(await page.textContent('#status')).toBe('A Meta checkpoint needs params.json, consolidated.NN.pth and tokenizer.model: add tokenizer.model.');
    await dropFiles(['params.json', 'consolidated.00.pth', 'consolidated.01.pth', 'tokenizer.model'].map((name) => [name, `${base}/${name}`]));
    await waitForStatus(/Ready|Cannot/);
    expect(await page.textContent('#status')).toBe('Ready.');
    expect(await page.locator('#file-roles li').allInnerTexts()).toEqual(['params.json — checkpoint parameters',
      'consolidated.00.pth — checkpoint weights (shard 0)', 'consolidated.01.pth — checkpoint weights (shard 1)',
      'tokenizer.model — tokenizer (SentencePiece)']);
  }, TIMEOUT);

  test('a second load while the first is loading: the first rejects ABORTED and stops reading, only the second shows', async () => {
    const slow = await startSlowServer(path.join(TESTDATA, 'rwkv/tiny-rwkv-6v0-3m-Q5_1.bin'));
    try {
      await page.goto(`${server.url}/web/pages/demo.html`);
      await page.evaluate(() => {
        window.loadEnds = [];
        window.addEventListener('demo-load-end', (event) => window.loadEnds.push(event.detail));
        window.statuses = [];
        new MutationObserver(() => window.statuses.push(document.querySelector('#status').textContent))
          .observe(document.querySelector('#status'), { childList: true, characterData: true, subtree: true });
        // Marks the second click in the list: what the status said after it.
        document.querySelector('#load').addEventListener('click', () => window.statuses.push('(click)'), { capture: true });
      });
      await page.fill('#url', `${slow.url}/first.bin`);
      await page.click('#load');
      await waitForStatus(/^Loading first\.bin: [\d.]+ MB of/); // the first is reading
      await page.fill('#url', `/testdata/${STORIES_GGUF}`);
      await page.click('#load');
      await waitForStatus(/^Ready\.$|Cannot|cancelled/);
      expect(await page.textContent('#status')).toBe('Ready.');
      expect(await page.textContent('#model-info')).toMatch(/^stories260K\.gguf: llama/);
      expect(await page.isHidden('#progress')).toBe(true);
      expect(await page.isHidden('#cancel-load')).toBe(true);
      const after = await page.evaluate(() => window.statuses.slice(window.statuses.lastIndexOf('(click)')));
      expect(after.filter((text) => /first\.bin|cancelled/.test(text))).toEqual([]);
      expect(after.some((text) => text.startsWith('Loading stories260K.gguf'))).toBe(true);
      await page.waitForFunction(() => window.loadEnds.length === 2);
      expect(await page.evaluate(() => window.loadEnds)).toEqual([
        { label: 'first.bin', code: 'ABORTED' }, { label: 'stories260K.gguf', code: 'READY' }]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(slow.requests.filter((r) => r.method === 'GET').every((r) => r.closedEarly)).toBe(true);
      // Cancel still cancels the load that shows.
      await page.fill('#url', `${slow.url}/third.bin`);
      await page.click('#load');
      await waitForStatus(/^Loading third\.bin: [\d.]+ MB of/);
      await page.click('#cancel-load');
      await waitForStatus(/^Loading cancelled\.$/);
      expect(await page.isHidden('#progress')).toBe(true);
      expect(await page.evaluate(() => window.loadEnds.at(-1))).toEqual({ label: 'third.bin', code: 'ABORTED' });
    } finally {
      await slow.close();
    }
  }, TIMEOUT);

  describe('chat with a Qwen3 file', () => {
    let file;
    let template;
    const system = 'You answer in one word.';
    const bubbles = () => page.$$eval('#chat-log li', (items) => items.map((li) => ({
      role: li.className.replace('message ', ''), text: li.querySelector('.text').textContent,
    })));

    beforeAll(async () => {
      const { ensureChatModel } = await import('../models/decoder-models.js');
      file = ensureChatModel('qwen3-chat', TESTDATA);
    });

    async function expectedReply(messages, maxTokens) {
      const { renderChat } = await import('../../web/src/worker/chat-template.js');
      const { openModel, releaseWasmModules } = await import('../../web/src/index.js');
      const model = await openModel(file, { contextLength: 256 });
      template = model.describe().metadata['tokenizer.chat_template'];
      const rendered = await renderChat(template, messages, { eosToken: '<|im_end|>' });
      const result = await model.complete(rendered, { temperature: 0, maxTokens, parseSpecial: true });
      model.dispose();
      await releaseWasmModules();
      return result;
    }

    test('Enter sends, Shift+Enter adds a line; bubbles show exactly the history sent, system prompt first', async () => {
      const user = 'Hello\nthere!';
      const expected = await expectedReply([{ role: 'system', content: system }, { role: 'user', content: user }], 8);
      await page.goto(`${server.url}/web/pages/demo.html`);
      await page.setInputFiles('#file', file);
      await waitForStatus(/^Ready\.$/);
      expect(await page.isDisabled('#chat-mode')).toBe(false);
      await page.check('#chat-mode');
      expect(await page.isVisible('#chat-panel')).toBe(true);
      expect(await page.isHidden('#complete-panel')).toBe(true);
      expect(await page.textContent('#chat-template')).toBe(template);
      await setSampling({ temperature: 0, maxTokens: 8 });
      await page.fill('#system-prompt', system);
      await page.click('#chat-input');
      await page.keyboard.type('Hello');
      await page.keyboard.press('Shift+Enter');
      await page.keyboard.type('there!');
      expect(await page.inputValue('#chat-input')).toBe(user);
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => !document.querySelector('#regenerate').disabled, null, { timeout: TIMEOUT });
      expect(await page.inputValue('#chat-input')).toBe('');
      expect(await bubbles()).toEqual([{ role: 'system', text: system }, { role: 'user', text: user },
        { role: 'assistant', text: expected.text }]);
      // The prompt the worker rendered had as many tokens as the template makes of system + user.
      expect(await page.textContent('#chat-log .assistant .speed')).toMatch(new RegExp(`^8 tokens generated · [\\d.]+ tokens/s · ${expected.promptTokens} prompt tokens · length$`));
      expect(await page.evaluate(() => window.demo.chatHistory())).toEqual([
        { role: 'system', content: system }, { role: 'user', content: user }, { role: 'assistant', content: expected.text }]);
    }, TIMEOUT);

    test('model text that looks like HTML shows as text; copy puts a reply on the clipboard', async () => {
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
      // The model's stream with markup in front of its own pieces.
      await page.evaluate(() => {
        const lm = window.demo.lm;
        const chat = lm.chat.bind(lm);
        lm.chat = async function* (messages, options) {
          yield { text: '<b>bold</b> <img src=x onerror="window.injected=1">', tokens: [1] };
          return yield* chat(messages, options);
        };
      });
      await page.fill('#chat-input', 'Show me <i>markup</i>');
      await page.click('#send');
      await page.waitForFunction(() => !document.querySelector('#regenerate').disabled, null, { timeout: TIMEOUT });
      const last = page.locator('#chat-log li.assistant').last();
      const reply = await last.locator('.text').textContent();
      expect(reply.startsWith('<b>bold</b> <img src=x onerror="window.injected=1">')).toBe(true);
      expect(await page.locator('#chat-log li.user').last().locator('.text').textContent()).toBe('Show me <i>markup</i>');
      expect(await page.$$eval('#chat-log .text', (texts) => texts.reduce((n, t) => n + t.childElementCount, 0))).toBe(0);
      expect(await page.evaluate(() => window.injected)).toBeUndefined();
      await last.locator('button.copy').click();
      await page.waitForFunction(() => document.querySelector('#chat-log li.assistant:last-child button.copy').textContent === 'Copied');
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(reply);
    }, TIMEOUT);

    test('Stop ends a reply, Regenerate replaces the last reply, Clear empties the conversation', async () => {
      await setSampling({ temperature: 0, maxTokens: 1500 });
      await page.click('#clear-chat');
      expect(await bubbles()).toEqual([{ role: 'system', text: system }]);
      expect(await page.evaluate(() => window.demo.chatHistory())).toEqual([{ role: 'system', content: system }]);
      // A slow stream, so Stop comes while it runs.
      await page.evaluate(() => {
        const lm = window.demo.lm;
        delete lm.chat; // the model's own chat() (the last test wrapped it)
        const chat = lm.chat.bind(lm);
        lm.chat = async function* (messages, options) {
          for (const piece of [' one', ' two', ' three']) {
            yield { text: piece, tokens: [1] };
            await new Promise((resolve) => setTimeout(resolve, 200));
            if (options.signal.aborted) throw Object.assign(new Error('aborted'), { code: 'ABORTED' });
          }
          return yield* chat(messages, options);
        };
      });
      await page.fill('#chat-input', 'Count');
      await page.press('#chat-input', 'Enter');
      await page.waitForFunction(() => document.querySelector('#chat-log li.assistant .text')?.textContent === ' one');
      await page.click('#stop-chat');
      await page.waitForFunction(() => !document.querySelector('#send').disabled);
      expect(await page.textContent('#chat-log li.assistant .speed')).toMatch(/stopped$/);
      expect(await page.textContent('#chat-log li.assistant .text')).toBe(' one');
      expect(await page.isDisabled('#stop-chat')).toBe(true);

      await setSampling({ temperature: 0, maxTokens: 4 });
      await page.evaluate(() => { delete window.demo.lm.chat; }); // the model's own chat() again
      const expected = await expectedReply([{ role: 'system', content: system }, { role: 'user', content: 'Count' }], 4);
      await page.click('#regenerate');
      await page.waitForFunction(() => !document.querySelector('#regenerate').disabled, null, { timeout: TIMEOUT });
      expect(await bubbles()).toEqual([{ role: 'system', text: system }, { role: 'user', text: 'Count' },
        { role: 'assistant', text: expected.text }]);
      expect(await page.textContent('#chat-log li.assistant .speed')).toMatch(/^4 tokens generated/);

      await page.click('#clear-chat');
      expect(await bubbles()).toEqual([{ role: 'system', text: system }]);
      await page.fill('#system-prompt', '');
      expect(await bubbles()).toEqual([]);
      expect(await page.isDisabled('#regenerate')).toBe(true);
      expect(await page.isDisabled('#clear-chat')).toBe(true);
    }, TIMEOUT);
  });
});
