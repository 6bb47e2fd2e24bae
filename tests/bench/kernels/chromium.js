#!/usr/bin/env node
// The kernel benchmark in headless Chromium, whose V8 is the one users run
// (Node 20's is years older and compiles some kernels very differently).
// Runs the relaxed-SIMD copy: Chromium has relaxed SIMD, and the package
// loads that copy there. Arguments as for the Node run (see run.sh).
//
//   node tests/bench/kernels/chromium.js [TYPE ...] | [--matmul TYPE ROWS COLS TOKENS [THREADS]]
//     | [--attention HEAD_DIM SLOTS ROWS [F16|F32 [cache]]]
//
// WASMLM_KERNELS_DIR: another build's copy under the repository (default
// build-wasm/relaxed), e.g. to compare two builds in one session.
// WASMLM_JS_FLAGS: V8 flags for the page, e.g. "--perf-prof" to see the
// machine code V8 made of a kernel (README, Kernels).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from '../../../scripts/serve.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../../js/helpers/chromium.js';

const ROOT = path.resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const DIR = `/${process.env.WASMLM_KERNELS_DIR ?? 'build-wasm/relaxed'}`;
if (!fs.existsSync(path.join(ROOT, DIR, 'wasmlm_bench_kernels.wasm'))) throw new Error(`build first: ${DIR} has no benchmark`);
if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing (apt-get install chromium)`);

const server = await startServer({ port: 0, root: ROOT, testdata: null });
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmlm-kernels-'));
const jsFlags = process.env.WASMLM_JS_FLAGS ? [`--js-flags=${process.env.WASMLM_JS_FLAGS}`] : [];
const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, ...jsFlags] });
let code = 1;
try {
  const page = context.pages()[0] ?? (await context.newPage());
  let settle;
  const done = new Promise((resolve, reject) => (settle = { resolve, reject }));
  // Registered before the page loads: the worker's first line may come at once.
  await page.exposeFunction('benchLine', ({ line, stderr, exit, error }) => {
    if (line !== undefined) (stderr ? process.stderr : process.stdout).write(`${line}\n`);
    if (exit !== undefined) settle.resolve(exit);
    if (error !== undefined) settle.reject(new Error(error));
  });
  const query = new URLSearchParams({ dir: DIR });
  for (const arg of process.argv.slice(2)) query.append('arg', arg);
  await page.goto(`${server.url}/tests/bench/kernels/browser/bench.html?${query}`);
  code = await done;
} finally {
  await context.close();
  await server.close();
  fs.rmSync(profile, { recursive: true, force: true });
}
process.exit(code);
