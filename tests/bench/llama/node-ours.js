// wasmlm under Node: one run, printed as one JSON line (a child of run.js,
// so each run gets a fresh wasm module and pthread pool).
//   node node-ours.js MODEL.gguf THREADS '[prompt ids]' N_GEN ['[banned ids]' [CONTEXT]]
import { benchOurs } from './bench-ours.js';

// run.js passes its snapshot of the package (see snapshot() there)
const { openModel, releaseWasmModules } = await import(process.env.WASMLM_BENCH_INDEX ?? '../../../web/src/index.js');

const [model, threads, prompt, nGen, banned = '[]', contextLength = '512'] = process.argv.slice(2);
try {
  const result = await benchOurs(openModel, model, { threads: Number(threads), prompt: JSON.parse(prompt), nGen: Number(nGen), banned: JSON.parse(banned), contextLength: Number(contextLength) });
  console.log(JSON.stringify(result));
} catch (error) {
  console.log(JSON.stringify({ error: String(error?.stack ?? error) }));
}
await releaseWasmModules();
process.exit(0);
