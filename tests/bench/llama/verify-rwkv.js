// One-off check of a generated RWKV file: node-llama-cpp loads it, and its
// greedy tokens for a fixed 8-token prompt equal wasmlm's (`wasmlm run
// --temp 0 --ignore-eos`); prints how many leading tokens agree, and how far
// apart the two engines' log-probabilities after the prompt are (native's
// top 8 tokens) against the spread of wasmlm's logits.
//   node tests/bench/llama/verify-rwkv.js MODEL.gguf [N_GEN]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getLlama } from 'node-llama-cpp';

const PROMPT = [33155, 4811, 16741, 59, 4383, 21887, 3318, 11]; // any 8 World ids
const [model, nArg = '8'] = process.argv.slice(2);
const nGen = Number(nArg);
const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../web/bin/wasmlm.js');

const logitsFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wasmlm-verify-')), 'logits.f32');
const ours = JSON.parse(execFileSync(process.execPath, [cli, 'run', model, '--prompt-ids', PROMPT.join(','),
  '--n', String(nGen), '--temp', '0', '--ignore-eos', '--logits', logitsFile, '--json'], { maxBuffer: 64 << 20 }).toString());
const raw = fs.readFileSync(logitsFile);
const logits = new Float32Array(raw.buffer, raw.byteOffset, raw.length / 4);
let top = -Infinity, bottom = Infinity;
for (const v of logits) [top, bottom] = [Math.max(top, v), Math.min(bottom, v)];
let z = 0;
for (const v of logits) z += Math.exp(v - top);
const ourLogProb = (t) => logits[t] - top - Math.log(z);

const llama = await getLlama({ gpu: false, build: 'never', usePrebuiltBinaries: true, skipDownload: true, logLevel: 'error' });
const m = await llama.loadModel({ modelPath: model, gpuLayers: 0 });
const ctx = await m.createContext({ contextSize: 256, sequences: 1, threads: 1 });
const seq = ctx.getSequence();
const first = (await seq.evaluateWithMetadata(PROMPT, { probabilities: true }, { temperature: 1, topK: 0, topP: 1, minP: 0 }).next()).value;
const nativeTop = [...first.probabilities.entries()].sort((a, b) => b[1] - a[1]).slice(0, 8);
const logProbDiff = Math.max(...nativeTop.map(([t, p]) => Math.abs(Math.log(p) - ourLogProb(t))));
await seq.clearHistory();
const native = [];
const it = seq.evaluate(PROMPT, { temperature: 0, yieldEogToken: true });
for (let i = 0; i < nGen; i++) native.push((await it.next()).value);
await it.return();
let same = 0;
while (same < nGen && ours.ids[same] === native[same]) same++;
console.log(JSON.stringify({ model: path.basename(model), ours: ours.ids, native, same: `${same}/${nGen}`,
  maxLogProbDiffTop8: Number(logProbDiff.toExponential(2)), logitRange: Number((top - bottom).toFixed(3)) }));
await ctx.dispose();
await m.dispose();
await llama.dispose();
