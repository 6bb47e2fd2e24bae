// Records native llama.cpp with a Q8_0 KV cache (llama.cpp's
// --cache-type-k q8_0 --cache-type-v q8_0, which needs its flash attention)
// on F32 decoder test models (tests/models/decoder-models.js), through
// node-llama-cpp's prebuilt CPU binary, 1 thread. Per model and run: the
// prompt ids, the logits after the prompt (the whole 512-token vocabulary),
// greedy ids with each step's top-2 logit margin, and each step's 16 largest
// logits. Writes <model>-F32.json beside this script; tests/native/
// kv_q8_0_reference_test.cpp compares against those without the native engine.
//
// The prompt goes in token by token: llama.cpp's CPU flash attention has two
// kernels, and a batch of many rows takes its tiled one (f32 queries against
// dequantized keys), while decoding one token takes the one wasmlm computes
// for every batch (queries quantized to Q8_0, integer dots with the keys).
//
//   bash tests/bench/llama/run.sh --help >/dev/null   # once: installs node-llama-cpp
//   node tests/reference/kv-q8_0/record-references.js [MODEL ...]
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { DECODER_MODELS, ensureDecoderModel, sha256 } from '../../models/decoder-models.js';
import { fnv1a64, recordSteps, referenceJson } from '../llama-cpp-steps.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const require = createRequire(path.join(root, 'tests/bench/llama/package.json'));
const { getLlama } = await import(require.resolve('node-llama-cpp'));
const testdata = process.env.WASMLM_TESTDATA ?? path.resolve(root, '..', 'shared', 'testdata');

// Head size 32: full attention (phi3, olmo2) and grouped-query (phi3-longrope).
// (kv_q8_0_reference_test.cpp says why not the head-size-64 models.)
const MODELS = ['phi3', 'phi3-longrope', 'olmo2'];

/** BOS then n - 1 ids spread over the vocabulary (none of the first 3 specials). */
function promptIds(n) {
  const ids = [1];
  for (let i = 1; i < n; i++) ids.push(3 + ((i * 193 + 71) % 509));
  return ids;
}

// A short prompt and one past a chunk of 256 keys (and gemma3's 264-slot rings).
const RUNS = [{ nCtx: 512, prompt: promptIds(24), steps: 16 }, { nCtx: 512, prompt: promptIds(300), steps: 8 }];

const llama = await getLlama({ gpu: false, build: 'never', usePrebuiltBinaries: true, skipDownload: true, logLevel: 'error' });
for (const name of process.argv.length > 2 ? process.argv.slice(2) : MODELS) {
  if (!DECODER_MODELS[name]) throw new Error(`unknown model ${name}`);
  const file = ensureDecoderModel(name, 'F32', testdata);
  const model = await llama.loadModel({ modelPath: file, gpuLayers: 0 });
  const runs = [];
  for (const run of RUNS) {
    const context = await model.createContext({ contextSize: run.nCtx, batchSize: 512, sequences: 1,
      threads: { ideal: 1, min: 1 }, flashAttention: true,
      experimentalKvCacheKeyType: 'Q8_0', experimentalKvCacheValueType: 'Q8_0' });
    const steps = await recordSteps(context.getSequence(), run.prompt, run.steps, 512, { tokenByToken: true });
    runs.push({ n_ctx: run.nCtx, prompt_ids: run.prompt, ...steps });
    await context.dispose();
  }
  await model.dispose();
  const reference = { file: path.basename(file), sha256: sha256(file), fnv1a64: fnv1a64(file),
    engine: 'llama.cpp (node-llama-cpp 3.22.1, CPU, Q8_0 K and V cache, flash attention, 1 thread, the prompt token by token)', runs };
  const outFile = path.join(here, `${name}-F32.json`);
  fs.writeFileSync(outFile, referenceJson(reference));
  console.log(`${path.relative(root, outFile)}: ${runs.length} runs, smallest margins ${runs.map((r) => Math.min(...r.margins).toFixed(3)).join('/')}`);
}
await llama.dispose();
