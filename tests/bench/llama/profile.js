#!/usr/bin/env node
// Where wasmlm's time goes in Chromium, by function: a CPU profile of the
// bench's model (gen-model.js) prompting or decoding in a module Worker,
// the way the product runs, sampled in every worker (the pthreads too).
//
//   node tests/bench/llama/profile.js [--size S] [--type Q4_K] [--threads 1] [--phase prompt|decode]
//        [--tokens 128] [--reps 20] [--steps 96] [--top 25] [--models DIR] [--json OUT.cpuprofiles.json]
//
// prompt: --reps prompts of --tokens tokens, each from an empty context;
// decode: --steps one-token steps after a --tokens prompt. Both after the
// bench's warm-up (32 prompt tokens + 64 steps). Prints the wall time and
// tokens/s, each thread's busy share, and the top functions' shares of all
// busy samples.
//
// Profiles are of the product's code linked with its function names
// (CMake targets wasmlm-{st,mt}-profiling, built here into build-wasm/profiling),
// served from a staging directory in place of web/dist. Node is no stand-in:
// its engine (V8 11) lowers the relaxed dot-add to several instructions, so
// wasmlm keeps Q4_0/Q4_K/Q5_K rows out of quads there and runs other kernels.
// Sampling costs: at 2 threads V8's profiler threads took 5-7% of a core each
// (2026-12-07), so times under the profiler are not the bench's.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { startServer } from '../../../scripts/serve.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../../js/helpers/chromium.js';
import { Cdp } from '../cdp.js';
import { WARM_UP } from './bench-ours.js';
import { ensureModel, SIZES } from './gen-model.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '../../..');
const TESTDATA = process.env.WASMLM_TESTDATA ?? path.resolve(REPO, '..', 'shared', 'testdata');
const BUILD = path.join(REPO, 'build-wasm');
const SAMPLING_US = 250;

function options() {
  const { values } = parseArgs({
    options: {
      size: { type: 'string', default: 'S' },
      type: { type: 'string', default: 'Q4_K' },
      threads: { type: 'string', default: '1' },
      phase: { type: 'string', default: 'prompt' },
      tokens: { type: 'string', default: '128' },
      reps: { type: 'string', default: '20' },
      steps: { type: 'string', default: '96' },
      top: { type: 'string', default: '25' },
      models: { type: 'string', default: process.env.WASMLM_BENCH_MODELS ?? path.join(HERE, 'models') },
      json: { type: 'string' },
    },
  });
  const count = (name, min) => {
    const n = Number(values[name]);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer >= ${min} (got ${values[name]})`);
    return n;
  };
  if (!SIZES[values.size]) throw new Error(`--size must be one of ${Object.keys(SIZES).join(', ')}`);
  if (!['prompt', 'decode'].includes(values.phase)) throw new Error('--phase must be prompt or decode');
  return {
    ...values, threads: count('threads', 1), tokens: count('tokens', 1), reps: count('reps', 1),
    steps: count('steps', 1), top: count('top', 1),
  };
}

/** The function names of a wasm file's name section, by function index. */
function wasmFunctionNames(bytes) {
  const names = new Map();
  let i = 8;
  const leb = () => {
    let result = 0, shift = 0, byte;
    do { byte = bytes[i++]; result += (byte & 0x7f) * 2 ** shift; shift += 7; } while (byte & 0x80);
    return result;
  };
  const text = (n) => new TextDecoder().decode(bytes.subarray(i, (i += n)));
  while (i < bytes.length) {
    const id = bytes[i++], size = leb(), end = i + size;
    if (id === 0 && text(leb()) === 'name') {
      while (i < end) {
        const sub = bytes[i++], subSize = leb(), subEnd = i + subSize;
        if (sub === 1) for (let k = leb(); k > 0; k--) { const index = leb(); names.set(index, text(leb())); }
        i = subEnd;
      }
    }
    i = end;
  }
  return names;
}

/** A directory served as the site root: web/src, the profiling build as web/dist, and the worker page. */
function stage() {
  execFileSync('ninja', ['-C', BUILD, 'wasmlm-st-profiling', 'wasmlm-mt-profiling'], {
    stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, NODE_PATH: process.env.NODE_PATH ?? '/usr/share/nodejs' },
  });
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmlm-profile-root-'));
  fs.cpSync(path.join(REPO, 'web/src'), path.join(root, 'web/src'), { recursive: true });
  fs.cpSync(path.join(BUILD, 'profiling'), path.join(root, 'web/dist'), { recursive: true });
  for (const extra of ['vendor', 'package.json']) {
    const from = path.join(REPO, 'web/dist', extra);
    if (fs.existsSync(from)) fs.cpSync(from, path.join(root, 'web/dist', extra), { recursive: true });
  }
  for (const file of ['bench.html', 'profile-worker.js']) {
    fs.cpSync(path.join(HERE, 'browser', file), path.join(root, 'tests/bench/llama/browser', file), { recursive: true });
  }
  return root;
}

/**
 * Busy time (ms) by function name over the profiles (one per worker), and
 * each worker's busy and sampled time. A sample stands for the time since
 * the one before it: the sampler falls behind when the cores are busy
 * (fewer samples per second at 2 threads), so counts would not compare.
 */
function tally(profiles, names) {
  const byName = new Map();
  const threads = [];
  for (const profile of profiles) {
    const nodes = new Map(profile.nodes.map((n) => [n.id, n.callFrame.functionName]));
    let busy = 0, total = 0;
    profile.samples.forEach((id, k) => {
      const ms = (profile.timeDeltas[k] ?? 0) / 1000;
      total += ms;
      let name = nodes.get(id);
      if (name === '(idle)' || name === '(program)') return;
      const index = /^(?:\$|wasm-function\[)(\d+)\]?$/.exec(name);
      if (index) name = names.get(Number(index[1])) ?? name;
      byName.set(name, (byName.get(name) ?? 0) + ms);
      busy += ms;
    });
    threads.push({ total, busy });
  }
  return { byName, threads };
}

async function main() {
  const opts = options();
  const model = ensureModel(opts.size, opts.type, opts.models, TESTDATA, (line) => console.error(line));
  const variant = opts.threads > 1 ? 'mt' : 'st';
  const names = wasmFunctionNames(fs.readFileSync(path.join(BUILD, 'profiling', `wasmlm-${variant}.wasm`)));
  const root = stage();
  const server = await startServer({ port: 0, root, testdata: opts.models });
  const userData = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmlm-profile-'));
  const context = await chromium.launchPersistentContext(userData, {
    executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, '--remote-debugging-port=0'],
  });
  let cdp = null;
  try {
    const page = await context.newPage();
    const url = `${server.url}/tests/bench/llama/browser/bench.html`;
    await page.goto(url);
    cdp = await Cdp.connect(userData);
    await cdp.attachPage(url);
    const call = (message) => page.evaluate((m) => new Promise((resolve) => {
      self.profiled.onmessage = ({ data }) => resolve(data);
      self.profiled.postMessage(m);
    }), message);
    await page.evaluate(() => {
      self.profiled = new Worker('/tests/bench/llama/browser/profile-worker.js', { type: 'module' });
    });
    const opened = await call({
      cmd: 'open', url: `/testdata/${path.basename(model)}`, threads: opts.threads,
      contextLength: opts.tokens + opts.steps + 16, promptTokens: opts.tokens, warmUp: WARM_UP,
    });
    if (opened.error) throw new Error(opened.error);
    const workers = cdp.workerSessions();
    for (const s of workers) {
      await cdp.send('Profiler.enable', {}, s);
      await cdp.send('Profiler.setSamplingInterval', { interval: SAMPLING_US }, s);
      await cdp.send('Profiler.start', {}, s);
    }
    const run = await call(opts.phase === 'decode'
      ? { cmd: 'decode', steps: opts.steps, promptTokens: opts.tokens }
      : { cmd: 'prompt', reps: opts.reps, promptTokens: opts.tokens });
    if (run.error) throw new Error(run.error);
    const profiles = [];
    for (const s of workers) profiles.push((await cdp.send('Profiler.stop', {}, s, 60_000)).profile);
    if (opts.json) fs.writeFileSync(opts.json, JSON.stringify(profiles));

    const tokens = opts.phase === 'decode' ? opts.steps : opts.reps * opts.tokens;
    const { byName, threads } = tally(profiles, names);
    const running = threads.filter((t) => t.busy > 0);
    const busy = running.reduce((a, t) => a + t.busy, 0);
    const perToken = (ms) => (1000 * ms / tokens).toFixed(1);
    console.log(`${opts.size} ${opts.type}, ${opts.threads} thread(s), ${opts.phase}: ${tokens} tokens in ${run.ms.toFixed(0)} ms `
      + `(${(tokens / (run.ms / 1000)).toFixed(1)} tokens/s under the profiler), build ${variant}`);
    console.log(`workers sampled: ${threads.length}; busy share of each that ran: ${running.map((t) => `${(100 * t.busy / t.total).toFixed(1)}%`).join(', ')}; `
      + `busy thread time ${busy.toFixed(0)} ms (${perToken(busy)} µs per token)`);
    console.log('\n| share of busy time | µs per token, all threads | function |\n|---|---|---|');
    for (const [name, ms] of [...byName].sort((a, b) => b[1] - a[1]).slice(0, opts.top)) {
      const shown = name.replace(/wasmlm::|\(anonymous namespace\)::|std::__2::/g, '').replace(/\|/g, '\\|').slice(0, 140);
      console.log(`| ${(100 * ms / busy).toFixed(1)}% | ${perToken(ms)} | ${shown} |`);
    }
  } finally {
    cdp?.close();
    await context.close();
    await server.close?.();
    fs.rmSync(userData, { recursive: true, force: true });
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main().then(() => process.exit(0), (error) => { console.error(`profile.js: ${error?.message ?? error}`); process.exit(1); });
