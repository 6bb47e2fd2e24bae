// Records native llama.cpp's outputs (node-llama-cpp's prebuilt CPU binary,
// llama.cpp's default F16 KV cache as in the test data's references, 1
// thread, no flash attention) for the synth-kq files of the types the test
// data added last, for synth-kq-pure-MXFP4.gguf, which the test data lacks
// (tests/models/synth-kq-mxfp4.js writes it), and for synth-kq-pure-IQ4_NL,
// which it holds without references.
//
// Writes beside this script:
// - for those two files, what ../shared/testdata/synth-kq/reference holds
//   for the others: reference-outputs.json (prompt "Once upon a time" with
//   BOS, 16 greedy ids, their top-2 margins), <file>.logits.f32 (after the
//   prompt), .logits-all.f32 (every prompt position), .logits-gen.f32 (every
//   greedy step);
// - second-prompt.json: for every file, a second prompt's ids and the logits
//   after it (the whole 512-token distribution), to compare probabilities.
// Each file's FNV-1a 64 is recorded, so a test knows it runs the same bytes.
//
//   bash tests/bench/llama/run.sh --help >/dev/null   # once: installs node-llama-cpp
//   node tests/reference/synth-kq/record-references.js
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { ensureSynthKqMxfp4, MXFP4_FILE } from '../../models/synth-kq-mxfp4.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const require = createRequire(path.join(root, 'tests/bench/llama/package.json'));
const { getLlama } = await import(require.resolve('node-llama-cpp'));
const testdata = process.env.WASMLM_TESTDATA ?? path.resolve(root, '..', 'shared', 'testdata');

const N_VOCAB = 512;
const PROMPT = 'Once upon a time';
const SECOND_PROMPT = 'One day, a little girl named Lily found a needle in her room';
const STEPS = 16;
const FILES = [
  'synth-kq-pure-TQ1_0.gguf', 'synth-kq-pure-TQ2_0.gguf', 'synth-kq-pure-IQ3_XXS.gguf', 'synth-kq-pure-IQ3_S.gguf',
  'synth-kq-imat-pure-IQ2_XXS.gguf', 'synth-kq-imat-pure-IQ2_XS.gguf', 'synth-kq-imat-pure-IQ2_S.gguf',
  'synth-kq-imat-pure-IQ1_S.gguf', 'synth-kq-imat-pure-IQ1_M.gguf', 'synth-kq-IQ3_XS.gguf', 'synth-kq-IQ3_M.gguf',
  'synth-kq-pure-IQ4_NL.gguf', 'synth-kq-pure-IQ4_XS.gguf',
];
// Files without references in the test data: recorded in full.
const IQ4_NL_FILE = 'synth-kq-pure-IQ4_NL.gguf';

function fnv1a64(file) {
  let h = 0xcbf29ce484222325n;
  for (const b of fs.readFileSync(file)) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h.toString(16).padStart(16, '0');
}

function byId(map) {
  const out = new Float32Array(N_VOCAB);
  for (const [id, v] of map) out[id] = v;
  return out;
}

function top2(logits) {
  let a = 0, b = -1;
  for (let i = 1; i < logits.length; i++) {
    if (logits[i] > logits[a]) { b = a; a = i; } else if (b < 0 || logits[i] > logits[b]) b = i;
  }
  return { id: a, margin: logits[a] - logits[b] };
}

function concat(rows) {
  const out = new Float32Array(rows.length * N_VOCAB);
  rows.forEach((r, i) => out.set(r, i * N_VOCAB));
  return Buffer.from(out.buffer);
}

const llama = await getLlama({ gpu: false, build: 'never', usePrebuiltBinaries: true, skipDownload: true, logLevel: 'error' });
const { version } = JSON.parse(fs.readFileSync(path.join(root, 'tests/bench/llama/node_modules/node-llama-cpp/package.json'), 'utf8'));
const engine = `llama.cpp (node-llama-cpp ${version}, CPU, F16 KV cache, 1 thread)`;

async function withContext(file, fn) {
  const model = await llama.loadModel({ modelPath: file, gpuLayers: 0 });
  const context = await model.createContext({ contextSize: 256, batchSize: 256, sequences: 1,
    threads: { ideal: 1, min: 1 }, flashAttention: false });
  try {
    return await fn(model, context.getSequence());
  } finally {
    await context.dispose();
    await model.dispose();
  }
}

const want = { generateNext: { logits: true } };

/** The logits after every prompt position, then greedy steps from the last. */
async function promptAndGreedy(sequence, ids, steps) {
  const out = await sequence.controlledEvaluate(ids.map((t) => [t, want]));
  const all = out.map((o) => byId(o.next.logits));
  const greedy = [], margins = [], gen = [];
  let logits = all[all.length - 1];
  for (let s = 0; s < steps; s++) {
    const { id, margin } = top2(logits);
    greedy.push(id);
    margins.push(margin);
    gen.push(logits);
    if (s + 1 === steps) break;
    logits = byId((await sequence.controlledEvaluate([[id, want]]))[0].next.logits);
  }
  return { all, greedy, margins, gen };
}

// The MXFP4 and IQ4_NL files, as the test data records the other types.
const mxfp4 = ensureSynthKqMxfp4(testdata);
const pathOf = (name) => (name === MXFP4_FILE ? mxfp4 : path.join(testdata, 'synth-kq', name));
const outputs = [];
for (const name of [MXFP4_FILE, IQ4_NL_FILE]) {
  const file = pathOf(name);
  outputs.push(await withContext(file, async (model, sequence) => {
    const ids = model.tokenize(PROMPT, false);
    const promptIds = [model.tokens.bos, ...ids];
    const r = await promptAndGreedy(sequence, promptIds, STEPS);
    const base = path.join(here, name.replace(/\.gguf$/, ''));
    fs.writeFileSync(`${base}.logits.f32`, concat([r.all[r.all.length - 1]]));
    fs.writeFileSync(`${base}.logits-all.f32`, concat(r.all));
    fs.writeFileSync(`${base}.logits-gen.f32`, concat(r.gen));
    return { file: name, fnv1a64: fnv1a64(file), engine, result: {
      prompt: PROMPT, prompt_ids: promptIds, greedy_ids: r.greedy,
      greedy_margins: r.margins.map((m) => Number(m.toPrecision(6))), n_vocab: N_VOCAB, kv_cache: 'f16' } };
  }));
  console.log(`${name}: greedy ${outputs.at(-1).result.greedy_ids.join(' ')}; smallest margin ${Math.min(...outputs.at(-1).result.greedy_margins)}`);
}
fs.writeFileSync(path.join(here, 'reference-outputs.json'), JSON.stringify(outputs, null, 1) + '\n');

// The second prompt on every file.
const second = [];
for (const name of [...FILES, MXFP4_FILE]) {
  const file = pathOf(name);
  second.push(await withContext(file, async (model, sequence) => {
    const promptIds = [model.tokens.bos, ...model.tokenize(SECOND_PROMPT, false)];
    const { all } = await promptAndGreedy(sequence, promptIds, 0);
    const logits = Array.from(all[all.length - 1], (v) => Number(v.toPrecision(9)));
    return { file: name, fnv1a64: fnv1a64(file), prompt: SECOND_PROMPT, prompt_ids: promptIds, logits };
  }));
  console.log(`${name}: ${second.at(-1).prompt_ids.length} prompt ids`);
}
fs.writeFileSync(path.join(here, 'second-prompt.json'), JSON.stringify({ engine, runs: second }) + '\n');
await llama.dispose();
