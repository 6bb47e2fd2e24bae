#!/usr/bin/env node
// Load benchmark of a PyTorch Meta checkpoint (BF16 .pth, random weights
// written by torch) quantized to Q8_0 as it loads, in Node. Prints a Markdown
// table. See README.md.
//
//   node tests/bench/pth/run.js [--size large|small] [--reps 2] [--json OUT.json]
//
// large: dim 2048, 8 layers, vocab 32000 (542M parameters, a 1.08 GB .pth);
// small: dim 512, 4 layers (46M, 93 MB), a quick check. The folder is made
// once by gen.py (Debian's /usr/bin/python3 with torch) in models/.
//
// Per rep, alternating: a raw read of the .pth (8 MiB pieces, dropped), then
// a child process (a fresh wasm heap) that opens the folder with
// openModel(dir, {quantize: 'Q8_0', contextLength: 256}), evaluates 3 tokens
// and reports its timings and memory. Then the same for the BF16 model as
// stored (no quantize), for comparison. The table shows the fastest rep.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs, promisify } from 'node:util';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '../../..');
const SELF = fileURLToPath(import.meta.url);
const PYTHON = '/usr/bin/python3';
const PIECE = 8 * 1024 * 1024; // as checkpoint-load.js reads
const CONTEXT = 256;
const PROMPT = [1, 2, 3];
const HEADROOM = 64 * 2 ** 20; // memory-check.js's working space
const MB = 1e6; // file sizes and speeds in decimal MB; memory in MiB
const MiB = 2 ** 20;
const SIZES = {
  large: { dim: 2048, layers: 8, heads: 16, kvHeads: 16, vocab: 32000 },
  small: { dim: 512, layers: 4, heads: 8, kvHeads: 8, vocab: 32000 },
};
const RUNS = [{ label: 'Q8_0 on load', quantize: 'Q8_0' }, { label: 'BF16 as stored', quantize: null }];

const log = (message) => process.stderr.write(`[pth] ${message}\n`);

function options() {
  const { values } = parseArgs({
    options: {
      size: { type: 'string', default: 'large' },
      reps: { type: 'string', default: '2' },
      json: { type: 'string' },
      // internal: one load of the folder --child in this process, result on stdout
      child: { type: 'string' },
      quantize: { type: 'string', default: '' },
      web: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    const lines = fs.readFileSync(SELF, 'utf8').split('\n').slice(1);
    console.log(lines.slice(0, lines.findIndex((l) => !l.startsWith('//'))).map((l) => l.replace(/^\/\/ ?/, '')).join('\n'));
    process.exit(0);
  }
  if (!SIZES[values.size]) throw new Error(`--size: large or small (got "${values.size}")`);
  const reps = Number(values.reps);
  if (!(reps >= 1)) throw new Error(`--reps: a positive number (got "${values.reps}")`);
  return { ...values, reps: Math.floor(reps) };
}

/** The checkpoint folder of this size, made by gen.py when missing. */
function ensureModel(size) {
  const s = SIZES[size];
  const dir = path.join(HERE, 'models', `${size}-d${s.dim}-l${s.layers}-bf16`);
  if (fs.existsSync(path.join(dir, 'params.json'))) return dir;
  log(`writing ${dir} with torch (once)`);
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const started = performance.now();
  execFileSync(PYTHON, [path.join(HERE, 'gen.py'), dir, s.dim, s.layers, s.heads, s.kvHeads, s.vocab].map(String),
    { stdio: ['ignore', 'inherit', 'inherit'] });
  log(`written in ${seconds(started).toFixed(1)} s`);
  return dir;
}

const seconds = (since) => (performance.now() - since) / 1000;

/** The package the children import. */
function webIndex() {
  if (!fs.existsSync(path.join(REPO, 'web/dist/wasmlm-st.wasm'))) throw new Error('web/dist is not built: run scripts/build.sh first');
  return pathToFileURL(path.join(REPO, 'web/src/index.js')).href;
}

/** Reads the file as the loader does (sequential 8 MiB pieces, a new buffer each) and drops the bytes. */
async function rawRead(file) {
  const handle = await fs.promises.open(file, 'r');
  try {
    const { size } = await handle.stat();
    const started = performance.now();
    for (let at = 0; at < size; at += PIECE) {
      const buffer = new Uint8Array(Math.min(PIECE, size - at));
      await handle.read(buffer, 0, buffer.length, at);
    }
    return seconds(started);
  } finally {
    await handle.close();
  }
}

/** One load in a new process: its wasm heap starts empty, so its size afterwards is this load's peak. */
async function loadInChild(web, dir, quantize) {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [SELF, '--web', web, '--child', dir, '--quantize', quantize ?? ''],
      { maxBuffer: 16 * MiB, timeout: 30 * 60 * 1000 });
    const line = stdout.split('\n').find((l) => l.startsWith('@result '));
    if (!line) throw new Error(`no result in the child's output:\n${stdout}`);
    return JSON.parse(line.slice('@result '.length));
  } catch (error) { // a crash: the end of its stderr, without Node's version line
    const lines = (error.stderr || error.message).split('\n').filter((l) => l.trim() && !l.startsWith('Node.js v'));
    return { error: lines.slice(-8).join('\n') };
  }
}

/** --child: what the parent measures, from inside the process that loads. */
async function child(web, dir, quantize) {
  const { openModel, loadWasmModule, releaseWasmModules } = await import(web);
  const started = performance.now();
  const wasm = await loadWasmModule();
  const moduleSeconds = seconds(started);
  const initialHeap = wasm.HEAPU8.buffer.byteLength;
  const phases = {};
  const model = await openModel(dir, {
    contextLength: CONTEXT, ...(quantize ? { quantize } : {}),
    onProgress: (e) => { phases[e.phase] ??= seconds(started); },
  });
  const loadSeconds = seconds(started);
  const heapAfterLoad = model.describe().memory.wasmHeapBytes;
  const evalStarted = performance.now();
  const logits = model.eval(PROMPT);
  const evalSeconds = seconds(evalStarted);
  const d = model.describe();
  const elements = (t) => t.shape.reduce((n, x) => n * Number(x), 1);
  const result = {
    moduleSeconds, loadSeconds, evalSeconds, phases, initialHeap, heapAfterLoad,
    ...d.memory, // weightBytes, kvCacheBytes, wasmHeapBytes (after the eval: the peak)
    largestTensorBf16: Math.max(...d.tensors.map((t) => 2 * elements(t))),
    logitsFinite: logits.length === model.nVocab && logits.every(Number.isFinite),
    maxRss: process.resourceUsage().maxRSS * 1024,
  };
  model.dispose();
  await releaseWasmModules();
  console.log(`@result ${JSON.stringify(result)}`);
}

const fmt = (x, digits = 0) => (x == null || Number.isNaN(x) ? '–' : x.toFixed(digits));

function row(run, fileBytes, raw) {
  const ok = run.reps.filter((r) => !r.error);
  if (!ok.length) return `| ${run.label} | ${fmt(fileBytes / MB)} | ${fmt(fileBytes / MB / raw)} | failed: ${run.reps[0].error.split('\n').pop()} |||||||||`;
  const best = ok.reduce((a, b) => (b.loadSeconds < a.loadSeconds ? b : a));
  const peak = Math.max(...ok.map((r) => r.wasmHeapBytes));
  const bound = best.weightBytes + best.largestTensorBf16 + best.kvCacheBytes + HEADROOM;
  return `| ${run.label} | ${fmt(fileBytes / MB)} | ${fmt(fileBytes / MB / raw)} | ${fmt(best.loadSeconds, 2)} | `
    + `${fmt(fileBytes / MB / best.loadSeconds)} | ${fmt(best.loadSeconds / raw, 1)} | ${fmt(best.weightBytes / MiB)} | `
    + `${fmt(best.largestTensorBf16 / MiB)} | ${fmt(best.kvCacheBytes / MiB)} | ${fmt(peak / MiB)} | `
    + `${fmt(bound / MiB)} ${peak <= bound ? '✓' : '✗'} | ${fmt(Math.max(...ok.map((r) => r.maxRss)) / MiB)} |`;
}

function repNote(r, k) {
  if (r.error) return `rep ${k + 1}: failed: ${r.error}`;
  const p = r.phases;
  return `rep ${k + 1}: load ${fmt(r.loadSeconds, 2)} s (wasm module ${fmt(r.moduleSeconds, 2)} s, `
    + `streaming from ${fmt(p.download, 2)} s, build at ${fmt(p.build, 2)} s), `
    + `peak wasm heap ${fmt(r.wasmHeapBytes / MiB)} MiB (${fmt(r.heapAfterLoad / MiB)} after the load, `
    + `${fmt(r.initialHeap / MiB)} at start), peak RSS ${fmt(r.maxRss / MiB)} MiB, `
    + `eval of ${PROMPT.length} tokens ${fmt(r.evalSeconds, 2)} s, logits ${r.logitsFinite ? 'finite' : 'NOT FINITE'}`;
}

async function main() {
  const opts = options();
  if (opts.child) {
    return child(opts.web, opts.child, opts.quantize || null).catch((error) => {
      console.log(`@result ${JSON.stringify({ error: `${error.code ?? error.name}: ${error.message}` })}`);
    });
  }
  const dir = ensureModel(opts.size);
  const web = webIndex();
  const pth = path.join(dir, 'consolidated.00.pth');
  const fileBytes = fs.statSync(pth).size;
  await rawRead(pth); // untimed: every timed read then comes from the page cache alike
  const raws = [];
  const runs = RUNS.map((r) => ({ ...r, reps: [] }));
  for (let k = 0; k < opts.reps; ++k) {
    for (const run of runs) {
      raws.push(await rawRead(pth));
      log(`rep ${k + 1}/${opts.reps}: raw read ${fmt(raws.at(-1), 2)} s; ${run.label}…`);
      const r = await loadInChild(web, dir, run.quantize);
      run.reps.push(r);
      log(r.error ? `failed: ${r.error}` : `load ${fmt(r.loadSeconds, 2)} s, peak wasm heap ${fmt(r.wasmHeapBytes / MiB)} MiB`);
    }
  }
  const raw = Math.min(...raws);
  console.log(`\n${path.relative(process.cwd(), pth)}: ${opts.size}, ${JSON.stringify(SIZES[opts.size])}, `
    + `contextLength ${CONTEXT}, 1 thread, best of ${opts.reps}; raw read best ${fmt(raw, 2)} s\n`);
  console.log('| load | file MB | raw read MB/s | load s | load MB/s | load/raw | weights MiB | largest tensor MiB (bf16) '
    + '| KV MiB | peak wasm heap MiB | bound MiB ✓/✗ | peak RSS MiB |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const run of runs) console.log(row(run, fileBytes, raw));
  console.log('');
  for (const run of runs) {
    console.log(`- ${run.label}:`);
    run.reps.forEach((r, k) => console.log(`  - ${repNote(r, k)}`));
  }
  if (opts.json) {
    fs.writeFileSync(opts.json, `${JSON.stringify({ size: opts.size, shape: SIZES[opts.size], file: pth, fileBytes,
      contextLength: CONTEXT, rawReadSeconds: raws, runs }, null, 2)}\n`);
    log(`wrote ${opts.json}`);
  }
  if (runs.some((run) => run.reps.some((r) => r.error || !r.logitsFinite))) process.exitCode = 1;
}

await main();
