// Both pages at phone width (375 px) and by keyboard alone: nothing clipped,
// the file chooser a real control, focus visible, every control named.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, describeWithChromium } from '../js/helpers/chromium.js';
import { startTestServer } from '../js/helpers/serve.js';
import { STORIES_GGUF } from '../js/helpers/testdata.js';

const TIMEOUT = 60_000;

/** Elements wider than the viewport, outside boxes that scroll (those may hold wide tables). */
const overflowing = (page) => page.evaluate(() => {
  const width = document.documentElement.clientWidth;
  const scrolls = (el) => /auto|scroll/.test(getComputedStyle(el).overflowX);
  const out = [];
  if (document.documentElement.scrollWidth > width) out.push(`page scrolls sideways: ${document.documentElement.scrollWidth} > ${width}`);
  for (const el of document.body.querySelectorAll('*')) {
    if (el.closest('[hidden]') || el.getClientRects().length === 0) continue;
    if (el.parentElement?.closest('.scroll, .scroll-x, pre, ol.items') && !scrolls(el)) continue;
    const box = el.getBoundingClientRect();
    if (box.left < -0.5 || box.right > width + 0.5) out.push(`${el.tagName.toLowerCase()}#${el.id}.${el.className}: ${box.left}–${box.right}`);
  }
  return out;
});

/** input, select, textarea and button elements without an accessible name. */
const unnamedControls = (page) => page.evaluate(() => Array.from(document.querySelectorAll('input, select, textarea, button'))
  .filter((el) => !(el.labels?.length && Array.from(el.labels).some((l) => l.textContent.trim()))
    && !el.getAttribute('aria-label') && !el.getAttribute('aria-labelledby')
    && !(el.tagName === 'BUTTON' && el.textContent.trim()))
  .map((el) => el.outerHTML.slice(0, 80)));

describeWithChromium('the pages at phone width and by keyboard', () => {
  let server;
  let profile;
  let context;
  let page;
  const choosers = [];

  beforeAll(async () => {
    server = await startTestServer();
    profile = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmlm-chromium-'));
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
    await page.setViewportSize({ width: 375, height: 812 });
    // Intercepting file choosers from the start: a waitForEvent() set up just
    // before the key press can lose the race with the dialog on a busy machine.
    page.on('filechooser', (chooser) => choosers.push(chooser));
  }, TIMEOUT);

  afterAll(async () => {
    await context?.close();
    await server?.close();
    if (profile) fs.rmSync(profile, { recursive: true, force: true });
  }, TIMEOUT);

  test('the demo page at 375 px: nothing sticks out, loading (Cancel shown) and chatting', async () => {
    await page.goto(`${server.url}/web/pages/demo.html`);
    await page.waitForFunction(() => document.querySelector('#url').value !== '');
    await page.$eval('#cancel-load', (button) => { button.hidden = false; }); // as while a load runs
    expect(await overflowing(page)).toEqual([]);
    await page.click('#load');
    await page.waitForFunction(() => document.querySelector('#status').textContent === 'Ready.', null, { timeout: TIMEOUT / 2 });
    await page.click('#settings summary');
    expect(await overflowing(page)).toEqual([]);
    // The chat panel, with a long unbroken message in a bubble.
    await page.$eval('#chat-mode', (radio) => { radio.disabled = false; radio.click(); });
    await page.fill('#system-prompt', 'x'.repeat(300));
    expect(await page.locator('#chat-log li').count()).toBe(1);
    expect(await overflowing(page)).toEqual([]);
    expect(await unnamedControls(page)).toEqual([]);
  }, TIMEOUT);

  test('the viewer at 375 px: its tables scroll inside their boxes', async () => {
    await page.goto(`${server.url}/web/pages/index.html`);
    await page.waitForFunction(() => document.querySelector('#url').value !== '');
    await page.click('#inspect');
    await page.waitForFunction(() => document.querySelectorAll('#tensors tbody tr').length > 0, null, { timeout: TIMEOUT / 2 });
    await page.click('#tensors tbody tr:has-text("token_embd.weight")');
    await page.waitForSelector('#histogram-chart rect');
    expect(await overflowing(page)).toEqual([]);
    const tensorsBox = await page.$eval('#tensors', (table) => ({
      table: table.scrollWidth, box: table.parentElement.clientWidth, scrolls: getComputedStyle(table.parentElement).overflowX,
    }));
    expect(tensorsBox.table).toBeGreaterThan(tensorsBox.box); // too wide for a phone: it scrolls in its box
    expect(tensorsBox.scrolls).toBe('auto');
    expect(await unnamedControls(page)).toEqual([]);
  }, TIMEOUT);

  test.each([['demo.html', 'Enter'], ['index.html', 'Space']])('on %s Tab reaches the file chooser, its focus shows, and %s opens it', async (file, key) => {
    await page.goto(`${server.url}/web/pages/${file}`);
    await page.waitForFunction(() => document.querySelector('#url').value !== '');
    let focused = '';
    for (let tabs = 0; tabs < 12 && focused !== 'choose-files'; ++tabs) {
      await page.keyboard.press('Tab');
      focused = await page.evaluate(() => document.activeElement?.id);
    }
    expect(focused).toBe('choose-files');
    const outline = await page.$eval('#choose-files', (button) => {
      const style = getComputedStyle(button);
      return { focusVisible: button.matches(':focus-visible'), style: style.outlineStyle, width: parseFloat(style.outlineWidth) };
    });
    expect(outline).toEqual({ focusVisible: true, style: 'solid', width: 2 });
    const seen = choosers.length;
    await page.keyboard.press(key);
    for (let waited = 0; choosers.length === seen && waited < 5000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(choosers.length).toBe(seen + 1);
    expect(choosers.at(-1).isMultiple()).toBe(true);
  }, TIMEOUT);
});
