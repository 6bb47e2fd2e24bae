// The package from a bundler: `vite build` of the app in tests/vite/app
// (which does `import { inspect, loadModel } from 'wasmlm'`), then the built
// page in headless Chromium, cross-origin isolated (the pthreads build) and
// not (the single-threaded build).
//
// The app is built the way a user's project would be: it is staged under
// tests/.tmp/ with the package installed in its node_modules/wasmlm (the
// files package.json publishes, copied), so Vite resolves 'wasmlm' through
// the package's `exports` and treats it as a dependency, not as source code
// of the app. @huggingface/jinja resolves from the repo's node_modules.
// Vite runs in a child process (tests/vite/build-app.js).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, describeWithChromium } from '../js/helpers/chromium.js';
import { startTestServer } from '../js/helpers/serve.js';
import { REPO_ROOT, STORIES_GGUF, testdataPath } from '../js/helpers/testdata.js';

const execFileAsync = promisify(execFile);
const TIMEOUT = 60_000;
const APP = path.join(REPO_ROOT, 'tests', 'vite', 'app');
// What Vite may warn about: the package's Node-only code paths (behind
// runtime checks, never reached in a browser) import node: modules, and the
// Emscripten glue calls require() for Node; Vite stubs those out.
const HARMLESS_WARNING = /has been externalized for browser compatibility/;

/** A project directory with the app and the package installed as npm would: its `files` and package.json. */
function stageProject() {
  const tmp = path.join(REPO_ROOT, 'tests', '.tmp');
  fs.mkdirSync(tmp, { recursive: true });
  const project = fs.mkdtempSync(path.join(tmp, 'vite-app-'));
  fs.cpSync(APP, project, { recursive: true });
  const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
  const installed = path.join(project, 'node_modules', pkg.name);
  for (const entry of ['package.json', ...pkg.files]) {
    const from = path.join(REPO_ROOT, entry);
    if (!fs.existsSync(from)) throw new Error(`${entry} is missing: build the package first (npm run build)`);
    fs.cpSync(from, path.join(installed, entry), { recursive: true });
  }
  return project;
}

/** `vite build` (tests/vite/build-app.js) with the app's own config; returns the output directory and Vite's warnings. */
async function buildApp(project) {
  const { stdout } = await execFileAsync(process.execPath, [path.join(REPO_ROOT, 'tests', 'vite', 'build-app.js'), project],
    { cwd: REPO_ROOT, maxBuffer: 16 * 1024 * 1024 });
  return JSON.parse(stdout);
}

describeWithChromium('a Vite production build of an app that imports wasmlm', () => {
  let project;
  let outDir;
  let warnings;
  let isolated; // COOP/COEP: a crossOriginIsolated page
  let plain;    // no isolation headers
  const failedRequests = [];
  const pageErrors = [];
  let profile;
  let context;
  let page;
  const reference = () => {
    const outputs = JSON.parse(fs.readFileSync(testdataPath('llama/stories260K/reference/reference-outputs.json'), 'utf8'));
    return outputs.find((r) => r.file === 'stories260K.gguf').result.greedy_text;
  };

  beforeAll(async () => {
    project = stageProject();
    ({ outDir, warnings } = await buildApp(project));
    const onResponse = (entry) => { if (entry.status >= 400) failedRequests.push(`${entry.status} ${entry.url}`); };
    [isolated, plain] = await Promise.all([
      startTestServer({ root: outDir, onResponse }),
      startTestServer({ root: outDir, isolation: false, onResponse }),
    ]);
    profile = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmlm-chromium-'));
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (error) => pageErrors.push(error.message));
  }, 2 * TIMEOUT);

  afterAll(async () => {
    await context?.close();
    await Promise.all([isolated, plain].map((server) => server?.close()));
    if (profile) fs.rmSync(profile, { recursive: true, force: true });
    if (project) fs.rmSync(project, { recursive: true, force: true });
  }, TIMEOUT);

  beforeEach(() => {
    failedRequests.length = 0;
    pageErrors.length = 0;
  });

  /** Opens the built page on `server` and returns what the app put on window.__result. */
  async function runApp(server) {
    await page.goto(`${server.url}/index.html?model=${encodeURIComponent(`/testdata/${STORIES_GGUF}`)}`);
    return page.evaluate(() => window.__result);
  }

  test('bundles the package: its worker, both wasm builds and their relaxed-SIMD copies as assets, nothing unresolved', () => {
    expect(warnings.filter((w) => !HARMLESS_WARNING.test(w))).toEqual([]);
    const assets = fs.readdirSync(path.join(outDir, 'assets'));
    const wasm = assets.filter((f) => f.endsWith('.wasm')).map((f) => /^wasmlm-((?:st|mt)(?:\.relaxed)?)-/.exec(f)?.[1] ?? f);
    expect(wasm.sort()).toEqual(['mt', 'mt.relaxed', 'st', 'st.relaxed']); // each build and its relaxed-SIMD copy
    expect(assets.some((f) => /^model-worker-.*\.js$/.test(f))).toBe(true);
    expect(assets.some((f) => /^wasmlm-mt\.worker-.*\.js$/.test(f))).toBe(true); // the pthreads' Worker
    expect(assets.filter((f) => f.includes('jinja'))).toEqual([]); // bundled from the dependency, not the vendored copy
  });

  test('on a cross-origin-isolated page: inspect() and loadModel() with the pthreads build, llama.cpp\'s greedy text', async () => {
    const result = await runApp(isolated);
    expect(result).toEqual({
      ok: true,
      crossOriginIsolated: true,
      tensors: 48,
      build: 'pthreads',
      threads: expect.any(Number),
      text: reference(),
    });
    expect(result.threads).toBeGreaterThan(1);
    expect(pageErrors).toEqual([]);
    expect(failedRequests).toEqual([]);
  }, TIMEOUT);

  test('on a plain page: the single-threaded build, the same text', async () => {
    const result = await runApp(plain);
    expect(result).toEqual({
      ok: true,
      crossOriginIsolated: false,
      tensors: 48,
      build: 'single-threaded',
      threads: 1,
      text: reference(),
    });
    expect(pageErrors).toEqual([]);
    expect(failedRequests).toEqual([]);
  }, TIMEOUT);
});
