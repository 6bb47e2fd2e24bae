// Records native llama.cpp's outputs (node-llama-cpp's prebuilt CPU binary,
// llama.cpp's default F16 KV cache, 1 thread, no flash attention) on the GGUF
// that ggjt-to-gguf.js makes of the test data's GGJT v3 TinyLLama-v0: the
// same tensors (bytes as stored) and vocabulary, so the GGJT file run by
// wasmlm can be compared with llama.cpp.
//
// Writes beside this script tinyllama-v0-ggjt.json (prompt "Once upon a time"
// with BOS: prompt ids, 16 greedy ids with each step's top-2 logit margin,
// the greedy text, the GGUF's FNV-1a 64 so a test knows it runs the same
// bytes) and tinyllama-v0-ggjt.logits.f32 (the 32000 logits after the prompt).
//
//   bash tests/bench/llama/run.sh --help >/dev/null   # once: installs node-llama-cpp
//   node tests/reference/legacy/record-references.js
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { ggjtToGguf, GGJT_FILE } from './ggjt-to-gguf.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const require = createRequire(path.join(root, 'tests/bench/llama/package.json'));
const { getLlama } = await import(require.resolve('node-llama-cpp'));

const PROMPT = 'Once upon a time';
const STEPS = 16;

function fnv1a64(file) {
  let h = 0xcbf29ce484222325n;
  for (const b of fs.readFileSync(file)) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h.toString(16).padStart(16, '0');
}

function top2(logits) {
  let a = 0, b = -1;
  for (let i = 1; i < logits.length; i++) {
    if (logits[i] > logits[a]) { b = a; a = i; } else if (b < 0 || logits[i] > logits[b]) b = i;
  }
  return { id: a, margin: logits[a] - logits[b] };
}

const gguf = ggjtToGguf();
const llama = await getLlama({ gpu: false, build: 'never', usePrebuiltBinaries: true, skipDownload: true, logLevel: 'error' });
const { version } = JSON.parse(fs.readFileSync(path.join(root, 'tests/bench/llama/node_modules/node-llama-cpp/package.json'), 'utf8'));
const model = await llama.loadModel({ modelPath: gguf, gpuLayers: 0 });
const context = await model.createContext({ contextSize: 256, batchSize: 256, sequences: 1,
  threads: { ideal: 1, min: 1 }, flashAttention: false });
const sequence = context.getSequence();
const want = { generateNext: { logits: true } };
const byId = (map, n) => {
  const out = new Float32Array(n);
  for (const [id, v] of map) out[id] = v;
  return out;
};
const N_VOCAB = 32000;
const promptIds = [model.tokens.bos, ...model.tokenize(PROMPT, false)];
let out = await sequence.controlledEvaluate(promptIds.map((t, i) => (i === promptIds.length - 1 ? [t, want] : t)));
let logits = byId(out[promptIds.length - 1].next.logits, N_VOCAB);
const first = logits;
const greedy = [], margins = [];
for (let s = 0; s < STEPS; s++) {
  const { id, margin } = top2(logits);
  greedy.push(id);
  margins.push(margin);
  if (s + 1 === STEPS) break;
  out = await sequence.controlledEvaluate([[id, want]]);
  logits = byId(out[0].next.logits, N_VOCAB);
}
const text = model.detokenize(greedy);
await context.dispose();
await model.dispose();
await llama.dispose();

fs.writeFileSync(path.join(here, 'tinyllama-v0-ggjt.logits.f32'), Buffer.from(first.buffer));
let min = Infinity, max = -Infinity;
for (const v of first) { min = Math.min(min, v); max = Math.max(max, v); }
const reference = {
  source: path.relative(path.resolve(root, '..', 'shared', 'testdata'), GGJT_FILE),
  gguf: path.basename(gguf), fnv1a64: fnv1a64(gguf),
  engine: `llama.cpp (node-llama-cpp ${version}, CPU, F16 KV cache, 1 thread)`,
  prompt: PROMPT, prompt_ids: promptIds, n_vocab: N_VOCAB,
  logits_file: 'tinyllama-v0-ggjt.logits.f32', logits_min: min, logits_max: max,
  greedy_ids: greedy, greedy_margins: margins.map((m) => Number(m.toPrecision(6))), greedy_text: text,
};
fs.writeFileSync(path.join(here, 'tinyllama-v0-ggjt.json'), JSON.stringify(reference, null, 1) + '\n');
console.log(`prompt ${promptIds.join(' ')}; greedy ${greedy.join(' ')}; smallest margin ${Math.min(...margins).toFixed(3)}`);
console.log(JSON.stringify(PROMPT + text));
