// One-off check of a generated RWKV file: node-llama-cpp loads it, and its
// greedy tokens for a fixed 8-token prompt equal wasmlm's (`wasmlm run
// --temp 0 --ignore-eos`); prints how many leading tokens agree and the logits' spread.
//   node tests/bench/llama/verify-rwkv.js MODEL.gguf [N_GEN]
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getLlama } from 'node-llama-cpp';

const PROMPT = [33155, 4811, 16741, 59, 4383, 21887, 3318, 11]; // any 8 World ids
const [model, nArg = '8'] = process.argv.slice(2);
const nGen = Number(nArg);
const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../web/bin/wasmlm.js');

const ours = JSON.parse(execFileSync(process.execPath, [cli, 'run', model, '--prompt-ids', PROMPT.join(','),
  '--n', String(nGen), '--temp', '0', '--ignore-eos', '--json'], { maxBuffer: 64 << 20 }).toString());

const llama = await getLlama({ gpu: false, build: 'never', usePrebuiltBinaries: true, skipDownload: true, logLevel: 'error' });
const m = await llama.loadModel({ modelPath: model, gpuLayers: 0 });
const ctx = await m.createContext({ contextSize: 256, sequences: 1, threads: 1 });
const seq = ctx.getSequence();
const native = [];
const it = seq.evaluate(PROMPT, { temperature: 0, yieldEogToken: true });
for (let i = 0; i < nGen; i++) native.push((await it.next()).value);
await it.return();
let same = 0;
while (same < nGen && ours.ids[same] === native[same]) same++;
console.log(JSON.stringify({ model: path.basename(model), ours: ours.ids, native, same: `${same}/${nGen}` }));
await ctx.dispose();
await m.dispose();
await llama.dispose();
