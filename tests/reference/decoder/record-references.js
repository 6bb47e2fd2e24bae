// Records native llama.cpp's outputs on the decoder test models
// (tests/models/decoder-models.js) through node-llama-cpp's prebuilt CPU
// binary: F32 KV cache, 1 thread, no flash attention. Per model file and
// run: the prompt ids, the logits after the prompt (the whole distribution:
// the vocabulary has 512 tokens), greedy ids with each step's top-2 logit
// margin, and each step's 16 largest logits (ids and values), which a test
// can compare at every step by feeding the same ids, whatever the margins. Writes <model>-<type>.json beside this script; the tests
// compare against those, so they run without the native engine.
//
//   bash tests/bench/llama/run.sh --help >/dev/null   # once: installs node-llama-cpp
//   node tests/reference/decoder/record-references.js [MODEL ...]
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { DECODER_MODELS, ensureDecoderModel, sha256, TYPES } from '../../models/decoder-models.js';
import { fnv1a64, recordSteps, referenceJson } from '../llama-cpp-steps.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const require = createRequire(path.join(root, 'tests/bench/llama/package.json'));
const { getLlama } = await import(require.resolve('node-llama-cpp'));
const testdata = process.env.WASMLM_TESTDATA ?? path.resolve(root, '..', 'shared', 'testdata');

/** BOS then n - 1 ids spread over the vocabulary (none of the first 3 specials). */
export function promptIds(n) {
  const ids = [1];
  for (let i = 1; i < n; i++) ids.push(3 + ((i * 193 + 71) % 509));
  return ids;
}

// What each model is run on: a short prompt with 32 greedy steps; a prompt
// longer than the window plus the ring's slack for windowed models; both
// LongRoPE factor sets for Phi-3 (original context 256: a 256-token context
// takes the short factors, 512 the long ones).
function runsFor(spec) {
  const runs = [{ nCtx: 512, prompt: promptIds(24), steps: 32 }];
  if (spec.keys['attention.sliding_window'] > 0 && spec.arch !== 'phi3') runs.push({ nCtx: 512, prompt: promptIds(300), steps: 8 });
  if (spec.longRope) runs.push({ nCtx: 256, prompt: promptIds(24), steps: 32 });
  return runs;
}

const llama = await getLlama({ gpu: false, build: 'never', usePrebuiltBinaries: true, skipDownload: true, logLevel: 'error' });
const names = process.argv.length > 2 ? process.argv.slice(2) : Object.keys(DECODER_MODELS);
for (const name of names) {
  const spec = DECODER_MODELS[name];
  for (const type of TYPES) {
    const file = ensureDecoderModel(name, type, testdata);
    const model = await llama.loadModel({ modelPath: file, gpuLayers: 0 });
    const runs = [];
    for (const run of runsFor(spec)) {
      const context = await model.createContext({ contextSize: run.nCtx, batchSize: 512, sequences: 1,
        threads: { ideal: 1, min: 1 }, flashAttention: false,
        experimentalKvCacheKeyType: 'F32', experimentalKvCacheValueType: 'F32' });
      const steps = await recordSteps(context.getSequence(), run.prompt, run.steps, 512);
      runs.push({ n_ctx: run.nCtx, prompt_ids: run.prompt, ...steps });
      await context.dispose();
    }
    await model.dispose();
    const reference = { file: path.basename(file), sha256: sha256(file), fnv1a64: fnv1a64(file), engine: 'llama.cpp (node-llama-cpp 3.22.1, CPU, F32 KV cache, 1 thread)', runs };
    const out = path.join(here, `${name}-${type}.json`);
    fs.writeFileSync(out, referenceJson(reference));
    const m = runs.map((r) => Math.min(...r.margins).toFixed(3)).join('/');
    console.log(`${path.relative(root, out)}: ${runs.length} run(s), smallest margins ${m}`);
  }
}
await llama.dispose();
