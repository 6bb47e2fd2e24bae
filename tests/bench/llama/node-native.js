// Native llama.cpp (node-llama-cpp's prebuilt CPU binary): one run, timed as
// bench-ours.js times wasmlm, printed as one JSON line.
//   node node-native.js MODEL.gguf THREADS '[prompt ids]' N_GEN ['[banned ids]' [CONTEXT]]
// WASMLM_BENCH_NATIVE_ROOT: a tree from native-cpu.js (run with
// --preserve-symlinks), for llama.cpp at that x86 level. The line reports the
// CPU backend ggml loaded and the buffers the weights went to (AMX,
// CPU_REPACK: repacked for the backend's matrix kernels; CPU_Mapped: as in
// the file).
import path from 'node:path';
import { BANNED_BELOW, WARM_UP } from './bench-ours.js';

const root = process.env.WASMLM_BENCH_NATIVE_ROOT;
const { getLlama, TokenBias } = await import(root ? path.join(root, 'node_modules/node-llama-cpp/dist/index.js') : 'node-llama-cpp');

const [modelPath, threadsArg, promptArg, nGenArg, bannedArg = '[]', contextArg = '512'] = process.argv.slice(2);
const threads = Number(threadsArg);
const prompt = JSON.parse(promptArg);
const nGen = Number(nGenArg);

try {
  // maxThreads 0: the context's `threads` is the number actually used
  let cpuBackend = null;
  const weightBuffers = new Set();
  const logger = (level, message) => {
    const backend = /loaded CPU backend from .*libggml-cpu-([\w-]+)\.so/.exec(message);
    if (backend) cpuBackend = backend[1];
    const buffer = /load_tensors: +(\S+) model buffer size/.exec(message);
    if (buffer) weightBuffers.add(buffer[1]);
    if (level === 'error' || level === 'fatal') process.stderr.write(message);
  };
  const llama = await getLlama({ gpu: false, build: 'never', usePrebuiltBinaries: true, skipDownload: true, maxThreads: 0, logLevel: 'log', logger });
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
  await generate(prompt.slice(0, WARM_UP.promptTokens), WARM_UP.steps); // warm-up
  await sequence.clearHistory();
  const run = await generate(prompt, nGen);
  console.log(JSON.stringify({
    threads: context.currentThreads ?? threads, loadMs, promptMs: run.promptMs, decodeMs: run.decodeMs,
    promptTokens: prompt.length, decodeSteps: nGen, tokens: run.tokens, finite: true,
    cpuBackend, weightBuffers: [...weightBuffers],
  }));
  await context.dispose();
  await model.dispose();
  await llama.dispose();
} catch (error) {
  console.log(JSON.stringify({ error: String(error?.stack ?? error) }));
}
process.exit(0);
