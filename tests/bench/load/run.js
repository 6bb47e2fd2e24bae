#!/usr/bin/env node
// Model load benchmark in headless Chromium: loadModel(url) to ready vs a
// plain fetch() of the same body, a second visit from the Cache API, and the
// peak memory during the load. Prints a Markdown table. Run through run.sh:
//
//   bash tests/bench/load/run.sh [--files M-Q4_0,S-Q8_0] [--reps 3] [--context 256]
//        [--threads auto|N] [--sample-ms 50] [--models DIR] [--json OUT.json]
//
// --sample-ms 0 turns the CDP JS-heap sampling off (to check it costs no time).
//
// Per file, in one browser and from one local server (scripts/serve.js, a
// COOP/COEP page): --reps times (a plain fetch reading the whole body and
// discarding it; loadModel without cache), interleaved; then one loadModel
// with cache: true (stores the file), then --reps loadModel with cache: true
// (reads it). Every measurement runs in a fresh tab; the best of each kind is
// shown. Memory: the wasm heap is lm.info.memory.wasmHeapBytes after the load
// (wasm memory never shrinks: it is the peak); the JS heap is sampled every
// 50 ms over CDP (Runtime.getHeapUsage usedSize, summed over the page and
// every worker it started) during the load; the renderer processes' RSS is
// sampled from /proc at the same rate (the largest is the tab's) as a
// cross-check of everything in the tab.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { startServer } from '../../../scripts/serve.js';
import { ensureModel, modelFileName } from '../llama/gen-model.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../../js/helpers/chromium.js';
import { Cdp } from '../cdp.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '../../..');
const TESTDATA = process.env.WASMLM_TESTDATA ?? path.resolve(REPO, '..', 'shared', 'testdata');
// CDP (the JS heap sampling) over a port of Chromium's choosing.
const LAUNCH_ARGS = [...CHROMIUM_ARGS, '--remote-debugging-port=0'];
const TARGET_RATIO = 1.2;
const TARGET_HEAP_SLACK = 64 * 2 ** 20;
const MB = 1e6; // sizes and speeds in decimal MB; heaps in MiB (see format())
const MiB = 2 ** 20;

const log = (message) => process.stderr.write(`[load] ${message}\n`);

function options() {
  const { values } = parseArgs({
    options: {
      files: { type: 'string', default: 'M-Q4_0,S-Q8_0' },
      reps: { type: 'string', default: '3' },
      context: { type: 'string', default: '256' },
      threads: { type: 'string', default: 'auto' },
      'sample-ms': { type: 'string', default: '50' },
      models: { type: 'string', default: process.env.WASMLM_BENCH_MODELS ?? path.join(HERE, '..', 'llama', 'models') },
      json: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    const lines = fs.readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n').slice(1);
    console.log(lines.slice(0, lines.findIndex((l) => !l.startsWith('//'))).map((l) => l.replace(/^\/\/ ?/, '')).join('\n'));
    process.exit(0);
  }
  const files = values.files.split(',').map((s) => s.trim()).filter(Boolean).map((spec) => {
    const m = /^([A-Z]+)-(\w+)$/.exec(spec);
    if (!m) throw new Error(`--files: SIZE-TYPE, e.g. M-Q4_0 (got "${spec}")`);
    return { size: m[1], type: m[2] };
  });
  return { files, reps: Math.max(1, Number(values.reps)), context: Number(values.context),
    threads: values.threads === 'auto' ? 'auto' : Number(values.threads), sampleMs: Number(values['sample-ms']), models: path.resolve(values.models), json: values.json };
}

/**
 * Copies web/src, web/dist and the page into tests/.tmp/ and serves that copy:
 * a rebuild of web/dist during the run (the tree is shared with development)
 * cannot mix builds. Retries while the build is half-written (the module does
 * not load in Node).
 */
async function snapshot() {
  const dir = path.join(REPO, 'tests', '.tmp', `bench-load-${process.pid}`);
  for (let attempt = 1; ; attempt++) {
    fs.rmSync(dir, { recursive: true, force: true });
    for (const part of ['web/src', 'web/dist', 'tests/bench/load/page']) {
      fs.cpSync(path.join(REPO, part), path.join(dir, part), { recursive: true });
    }
    const index = pathToFileURL(path.join(dir, 'web/src/index.js')).href;
    const check = await new Promise((resolve) => execFile(process.execPath, ['--input-type=module', '-e',
      `const m = await import(${JSON.stringify(index)}); for (const t of [1, 2]) await m.loadWasmModule({ threads: t }); await m.releaseWasmModules(); process.exit(0);`],
    { timeout: 60_000 }, (error, _stdout, stderr) => resolve(error ? (stderr.split('\n').find((l) => /error/i.test(l)) ?? String(error.message)).trim() : null)));
    if (!check) {
      process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
      return dir;
    }
    if (attempt === 10) throw new Error(`web/dist does not load: ${check}`);
    log(`web/dist does not load (being rebuilt?): ${check}; retrying in 15 s`);
    await new Promise((resolve) => setTimeout(resolve, 15_000));
  }
}

// ------------------------------------------------------------- memory ----


/** Chromium's renderer processes below this Node process (Linux /proc). */
function rendererPids() {
  const children = new Map();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(name));
    } catch { /* gone */ }
  }
  const out = [];
  const walk = (pid) => {
    for (const child of children.get(pid) ?? []) {
      try {
        if (fs.readFileSync(`/proc/${child}/cmdline`, 'utf8').includes('--type=renderer')) out.push(child);
      } catch { /* gone */ }
      walk(child);
    }
  };
  walk(process.pid);
  return out;
}

function procStatus(pid, field) {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

// ------------------------------------------------------------ Chromium ----

class Bench {
  static async start(root, modelsDir) {
    const self = new Bench();
    self.server = await startServer({ port: 0, root, testdata: modelsDir });
    self.profile = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmlm-load-'));
    self.context = await chromium.launchPersistentContext(self.profile, { executablePath: CHROMIUM, args: LAUNCH_ARGS });
    try {
      self.cdp = await Cdp.connect(self.profile);
    } catch (error) {
      log(`no CDP connection for the JS heaps (${error.message}); the JS heap column will be empty`);
    }
    return self;
  }

  /**
   * Runs `fn(page)` in a fresh tab (the model page, cross-origin isolated)
   * while sampling memory; resolves to fn's result plus peakJsHeap (bytes,
   * null if unmeasured), jsTargets (how many targets answered at the peak)
   * and rendererPeakRss (bytes, null if unknown).
   */
  async measure(fn) {
    const page = await this.context.newPage();
    page.on('pageerror', (error) => log(`page error: ${error.message}`));
    const url = `${this.server.url}/tests/bench/load/page/bench.html`;
    await page.goto(url);
    if (!(await page.evaluate(() => self.crossOriginIsolated))) throw new Error('the bench page is not cross-origin isolated');
    // renderers (the tab's among them): the largest RSS seen while sampling is the tab's
    const renderers = rendererPids();
    let peakRss = null;
    const sampleRss = () => {
      for (const pid of renderers) {
        const rss = procStatus(pid, 'VmRSS');
        if (rss !== null && (peakRss === null || rss > peakRss)) peakRss = rss;
      }
    };
    let peakJs = null;
    let jsTargets = 0;
    let sampling = false;
    let stop = false;
    let loop = null;
    if (this.cdp && this.sampleMs > 0) {
      try {
        await this.cdp.attachPage(url);
        sampling = true;
      } catch (error) {
        log(`cannot attach to the page: ${error.message}`);
      }
    }
    {
      loop = (async () => {
        while (!stop) {
          sampleRss();
          if (sampling) {
            const { bytes, targets } = await this.cdp.heapUsed();
            if (peakJs === null || bytes > peakJs) { peakJs = bytes; jsTargets = targets; }
          }
          await new Promise((r) => setTimeout(r, this.sampleMs || 50));
        }
      })();
    }
    try {
      let timer;
      const result = await Promise.race([fn(page), new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('no result after 180 s')), 180_000);
      })]).finally(() => clearTimeout(timer));
      stop = true;
      await loop;
      sampleRss();
      return { ...result, peakJsHeap: peakJs, jsTargets, rendererPeakRss: peakRss };
    } finally {
      stop = true;
      await loop;
      await this.cdp?.detachAll();
      await page.close();
    }
  }

  /** A plain fetch() reading the body with its default reader (`byob`: into one reused 1 MiB buffer). */
  rawFetch(url, { byob = false } = {}) {
    return this.measure((page) => page.evaluate(async ({ url, byob }) => {
      const t0 = performance.now();
      const response = await fetch(url);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      let bytes = 0;
      if (byob) {
        const reader = response.body.getReader({ mode: 'byob' });
        let buffer = new ArrayBuffer(1 << 20);
        for (;;) {
          const { done, value } = await reader.read(new Uint8Array(buffer));
          if (done) break;
          bytes += value.length; // and drop it
          buffer = value.buffer;
        }
      } else {
        const reader = response.body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          bytes += value.length; // and drop it
        }
      }
      return { ms: performance.now() - t0, bytes };
    }, { url, byob }));
  }

  loadModel(url, { cache, contextLength, threads }) {
    return this.measure((page) => page.evaluate(async ({ url, cache, contextLength, threads }) => {
      const { loadModel } = await import('/web/src/index.js'); // before t0: the page's own script
      const phases = {};
      let source = null;
      const t0 = performance.now();
      const lm = await loadModel(url, {
        contextLength, cache, threads,
        onProgress: (p) => {
          source = p.source ?? source;
          if (!(p.phase in phases)) phases[p.phase] = performance.now() - t0;
        },
      });
      const ms = performance.now() - t0;
      const { memory, build, fileSize } = lm.info;
      const used = lm.info.threads;
      await lm.dispose();
      return { ms, phases, source, memory, build, threads: used, fileSize };
    }, { url, cache, contextLength, threads }));
  }

  clearCache() {
    return this.measure((page) => page.evaluate(async () => {
      const { clearCache } = await import('/web/src/index.js');
      return { cleared: await clearCache() };
    }));
  }

  async close() {
    this.cdp?.close();
    await this.context?.close();
    await this.server?.close();
    if (this.profile) fs.rmSync(this.profile, { recursive: true, force: true });
  }
}

// -------------------------------------------------------------- output ----

const best = (runs) => runs.filter((r) => r && !r.error).reduce((a, b) => (a && a.ms <= b.ms ? a : b), null);
const maxOf = (runs, key) => {
  const values = runs.filter((r) => r && !r.error && r[key] != null).map((r) => r[key]);
  return values.length ? Math.max(...values) : null;
};

function table(rows) {
  const s = (ms) => (ms / 1000).toFixed(2);
  const speed = (bytes, ms) => (bytes / MB / (ms / 1000)).toFixed(0);
  const mib = (b) => (b == null ? '—' : (b / MiB).toFixed(0));
  const out = [];
  out.push('| file | size MB | raw fetch s (MB/s) | loadModel s (MB/s) | ratio | raw BYOB read s | loadModel / raw BYOB | cached 2nd load s (MB/s) | peak wasm heap MiB | peak JS heap MiB | peak renderer RSS MiB | target ✓/✗ |');
  out.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  for (const row of rows) {
    const { file, size, raw, rawByob, ours, cached, stored } = row;
    if (!raw || !ours) {
      out.push(`| ${file} | ${(size / MB).toFixed(0)} | ${raw ? s(raw.ms) : 'failed'} | ${ours ? s(ours.ms) : 'failed'} | | | | | | | | ✗ |`);
      continue;
    }
    const ratio = ours.ms / raw.ms;
    const wasm = row.wasmHeap;
    const js = row.peakJsHeap;
    const heapOk = wasm != null && js != null ? wasm + js <= size + TARGET_HEAP_SLACK : null;
    const marks = [`time ${ratio <= TARGET_RATIO ? '✓' : '✗'}`, `heap ${heapOk === null ? '?' : heapOk ? '✓' : '✗'}`];
    out.push(`| ${file} | ${(size / MB).toFixed(0)} | ${s(raw.ms)} (${speed(size, raw.ms)}) | ${s(ours.ms)} (${speed(size, ours.ms)}) | ${ratio.toFixed(2)} `
      + `| ${rawByob ? s(rawByob.ms) : 'failed'} | ${rawByob ? (ours.ms / rawByob.ms).toFixed(2) : ''} `
      + `| ${cached ? `${s(cached.ms)} (${speed(size, cached.ms)})` : 'failed'} | ${mib(wasm)} | ${mib(js)} | ${mib(row.rss)} | ${marks.join(', ')} |`);
    row.note = `${file}: ${ours.build}, ${ours.threads} thread(s), context ${row.context}; weights ${mib(ours.memory.weightBytes)} MiB + KV ${mib(ours.memory.kvCacheBytes)} MiB; `
      + `wasm + JS = ${mib(wasm + (js ?? 0))} MiB vs target ${mib(size + TARGET_HEAP_SLACK)} MiB; `
      + `first load with cache: true (stores the file) ${stored ? `${s(stored.ms)} s` : 'failed'}; `
      + `2nd load source: ${cached?.source ?? '?'}; phases of the best uncached load (s from the call): `
      + Object.entries(ours.phases).map(([k, v]) => `${k} ${s(v)}`).join(', ');
  }
  out.push('');
  out.push(`Targets: loadModel ≤ ${TARGET_RATIO} × raw fetch (the default reader, as a page reads a body); peak wasm heap + peak JS heap ≤ file size + 64 MiB. Best of the repetitions (memory: the largest seen).`);
  for (const row of rows) if (row.note) out.push(`- ${row.note}`);
  return out.join('\n');
}

// ---------------------------------------------------------------- main ----

async function main() {
  const opts = options();
  fs.mkdirSync(opts.models, { recursive: true });
  const files = opts.files.map(({ size, type }) => {
    const file = ensureModel(size, type, opts.models, TESTDATA, log);
    return { name: modelFileName(size, type), file, size: fs.statSync(file).size };
  });
  const root = await snapshot();
  const bench = await Bench.start(root, opts.models);
  bench.sampleMs = opts.sampleMs;
  const rows = [];
  const raw = {};
  try {
    log(`Chromium ${bench.context.browser()?.version() ?? execFileSync(CHROMIUM, ['--version'], { encoding: 'utf8' }).trim()}; server ${bench.server.url}`);
    for (const { name, size } of files) {
      const url = `/testdata/${name}`;
      const step = async (what, fn) => {
        try {
          const r = await fn();
          const extra = r.memory ? `, wasm heap ${(r.memory.wasmHeapBytes / MiB).toFixed(0)} MiB, source ${r.source}` : '';
          log(`${name} ${what}: ${(r.ms / 1000).toFixed(2)} s, peak JS heap ${r.peakJsHeap == null ? '?' : (r.peakJsHeap / MiB).toFixed(1)} MiB (${r.jsTargets} targets)${extra}`);
          return r;
        } catch (error) {
          log(`${name} ${what} failed: ${error.message.split('\n')[0]}`);
          return { error: error.message };
        }
      };
      await bench.clearCache();
      const runs = { raw: [], rawByob: [], ours: [], stored: [], cached: [] };
      const load = { contextLength: opts.context, threads: opts.threads };
      for (let i = 1; i <= opts.reps; i++) {
        runs.raw.push(await step(`raw fetch #${i}`, () => bench.rawFetch(url)));
        runs.ours.push(await step(`loadModel #${i}`, () => bench.loadModel(url, { ...load, cache: false })));
        runs.rawByob.push(await step(`raw fetch, BYOB reader #${i}`, () => bench.rawFetch(url, { byob: true })));
      }
      runs.stored.push(await step('loadModel cache: true, storing', () => bench.loadModel(url, { ...load, cache: true })));
      for (let i = 1; i <= opts.reps; i++) {
        runs.cached.push(await step(`loadModel cache: true, from the cache #${i}`, () => bench.loadModel(url, { ...load, cache: true })));
      }
      await bench.clearCache();
      const loads = [...runs.ours, ...runs.stored, ...runs.cached].filter((r) => r && !r.error);
      const wasmHeaps = loads.map((r) => r.memory.wasmHeapBytes);
      rows.push({
        file: name, size, context: opts.context,
        raw: best(runs.raw), rawByob: best(runs.rawByob), ours: best(runs.ours), stored: best(runs.stored), cached: best(runs.cached),
        wasmHeap: wasmHeaps.length ? Math.max(...wasmHeaps) : null,
        peakJsHeap: maxOf(loads, 'peakJsHeap'),
        rss: maxOf(loads, 'rendererPeakRss'),
      });
      raw[name] = runs;
    }
  } finally {
    await bench.close();
  }
  console.log(table(rows));
  if (opts.json) fs.writeFileSync(opts.json, JSON.stringify({ rows, runs: raw }, null, 2));
}

main().then(() => process.exit(0), (error) => {
  console.error(`[load] ${error.stack ?? error}`);
  process.exit(1);
});
