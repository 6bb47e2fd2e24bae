// The wasm kernel tests (SIMD against the scalar reference) as the relaxed
// copy in Chromium: its V8 is the one users run, and the kernels built on
// the relaxed dot-add are tested only here (Node 20's V8 miscompiles it, so
// the Node run of the suite takes the int16 kernels; see relaxed_simd.h).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, describeWithChromium } from '../js/helpers/chromium.js';
import { startTestServer } from '../js/helpers/serve.js';
import { REPO_ROOT } from '../js/helpers/testdata.js';

const DIR = 'build-wasm/relaxed';
const NAME = 'wasmlm_wasm_kernel_tests';
const TIMEOUT = 120000;

describeWithChromium('the wasm kernel tests in Chromium', () => {
  test('pass, with the relaxed kernels and the dot-add ones in use', async () => {
    expect(fs.existsSync(path.join(REPO_ROOT, DIR, `${NAME}.wasm`))).toBe(true);
    const server = await startTestServer();
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmlm-kernel-tests-'));
    const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      const lines = [];
      const exit = new Promise((resolve, reject) => {
        page.exposeFunction('benchLine', ({ line, exit: code, error }) => {
          if (line !== undefined) lines.push(line);
          if (code !== undefined) resolve(code);
          if (error !== undefined) reject(new Error(error));
        });
      });
      const query = new URLSearchParams({ dir: `/${DIR}`, name: NAME });
      query.append('arg', '--gtest_brief=1');
      await page.goto(`${server.url}/tests/bench/kernels/browser/bench.html?${query}`);
      const code = await exit;
      const output = lines.join('\n');
      expect({ code, failed: lines.filter((l) => l.includes('[  FAILED  ]')) }).toEqual({ code: 0, failed: [] });
      expect(output).toMatch(/\[  PASSED  \] \d+ tests?\./);
      // The probe found the engine's dot-add exact, so the dot-add tiles ran
      // (pinned, beside the int16 ones); which ones the engine's dot-add
      // lowering chose for prompts goes to the log.
      expect(output).not.toMatch(/dot-add kernels not in use/);
      console.log(output.match(/dot-add lowering: .*/)?.[0] ?? 'the tiles chosen not reported');
    } finally {
      await context.close();
      await server.close();
      fs.rmSync(profile, { recursive: true, force: true });
    }
  }, TIMEOUT);
});
