// Native llama.cpp (node-llama-cpp's prebuilt CPU binary): one run, timed as
// bench-ours.js times wasmlm, printed as one JSON line.
//   node node-native.js MODEL.gguf THREADS '[prompt ids]' N_GEN ['[banned ids]' [CONTEXT]]
import { getLlama, TokenBias } from 'node-llama-cpp';
import { BANNED_BELOW } from './bench-ours.js';

const [modelPath, threadsArg, promptArg, nGenArg, bannedArg = '[]', contextArg = '512'] = process.argv.slice(2);
const threads = Number(threadsArg);
const prompt = JSON.parse(promptArg);
const nGen = Number(nGenArg);

try {
  // maxThreads 0: the context's `threads` is the number actually used
  const llama = await getLlama({ gpu: false, build: 'never', usePrebuiltBinaries: true, skipDownload: true, maxThreads: 0, logLevel: 'error' });
  const t0 = performance.now();
  const model = await llama.loadModel({ modelPath, gpuLayers: 0 });
  const context = await model.createContext({ contextSize: Number(contextArg), batchSize: 512, sequences: 1, threads: { ideal: threads, min: threads }, flashAttention: false });
  const loadMs = performance.now() - t0;
  const sequence = context.getSequence();
  const banned = new TokenBias(model.tokenizer); // as bench-ours.js
  for (let id = 0; id < BANNED_BELOW; id++) banned.set(id, 'never');
  for (const id of JSON.parse(bannedArg)) banned.set(id, 'never');
  const options = { temperature: 0, tokenBias: banned };

  const generate = async (ids, steps, timed) => {
    const it = sequence.evaluate(ids, options);
    const t1 = performance.now();
    const tokens = [(await it.next()).value];
    const t2 = performance.now();
    for (let i = 0; i < steps; i++) tokens.push((await it.next()).value);
    const t3 = performance.now();
    await it.return();
    return { tokens, promptMs: t2 - t1, decodeMs: t3 - t2 };
  };
  await generate(prompt.slice(0, 8), 4); // warm-up
  await sequence.clearHistory();
  const run = await generate(prompt, nGen);
  console.log(JSON.stringify({
    threads: context.currentThreads ?? threads, loadMs, promptMs: run.promptMs, decodeMs: run.decodeMs,
    promptTokens: prompt.length, decodeSteps: nGen, tokens: run.tokens, finite: true,
  }));
  await context.dispose();
  await model.dispose();
  await llama.dispose();
} catch (error) {
  console.log(JSON.stringify({ error: String(error?.stack ?? error) }));
}
process.exit(0);
