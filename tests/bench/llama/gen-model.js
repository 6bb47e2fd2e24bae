// Deterministic LLaMA-shaped GGUF files for the benchmark: realistic sizes,
// random weights, the LLaMA-2 32000-token vocabulary.
//
// The weights are drawn directly on each type's quantization grid (random
// quants, random per-block scales chosen so every matrix has std ~ 1/sqrt(n_in)),
// which is what quantizing random weights gives and is a valid file for every
// engine: finite activations, logits with std ~ 1. Every tensor is seeded by
// its name, so a file is the same bytes on every machine.
//
//   node tests/bench/llama/gen-model.js S Q4_0 OUT.gguf
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ALIGNMENT, Bytes, GGML, GT, quantizedMatrix, readTokenizerPairs, seedOf, sizeTensors, writeGguf } from '../../models/gguf-write.js';

export const SIZES = {
  // dim, layers, FFN, heads, KV heads
  S: { dim: 768, layers: 12, ffn: 2048, heads: 12, kvHeads: 12 },   // ~134M parameters (110M + 49M of embeddings/head)
  M: { dim: 2048, layers: 22, ffn: 5632, heads: 32, kvHeads: 4 },   // ~1.1B (TinyLlama's shape)
  L: { dim: 2560, layers: 38, ffn: 6912, heads: 32, kvHeads: 8 },   // ~2.8B: a 3 GB Q8_0 file, for the 4 GB heap (load bench only)
};
export const TYPES = ['Q8_0', 'Q4_0', 'Q4_K'];
// The types of issue 17's rows (M shape) and IQ4_XS, run when named with --types.
export const MORE_TYPES = ['IQ2_XS', 'IQ3_XXS', 'TQ2_0', 'MXFP4', 'IQ4_XS'];
// Other types run when named, with the default types' targets.
export const EXTRA_TYPES = ['Q5_K'];

const VOCAB_FILE = 'llama/tiny-random/llama-2-tiny-random.gguf';
const N_VOCAB = 32000;

export function modelFileName(size, type) {
  return `llama-${size}-${type}.gguf`;
}

/** The tensor list in llama.cpp's order: name, type, shape (ne0 first), data generator. */
function tensorPlan(size, type) {
  const { dim, layers, ffn, heads, kvHeads } = SIZES[size];
  const kvDim = (dim / heads) * kvHeads;
  const ones = (n) => () => new Uint8Array(new Float32Array(n).fill(1).buffer);
  const mat = (name, nIn, nOut, sigma) => ({
    name, type, shape: [nIn, nOut], make: () => quantizedMatrix(type, nIn, nOut, sigma, seedOf(name)),
  });
  const plan = [mat('token_embd.weight', dim, N_VOCAB, 1)];
  for (let l = 0; l < layers; l++) {
    const p = `blk.${l}.`;
    plan.push(
      { name: `${p}attn_norm.weight`, type: 'F32', shape: [dim], make: ones(dim) },
      mat(`${p}attn_q.weight`, dim, dim, 1 / Math.sqrt(dim)),
      mat(`${p}attn_k.weight`, dim, kvDim, 1 / Math.sqrt(dim)),
      mat(`${p}attn_v.weight`, dim, kvDim, 1 / Math.sqrt(dim)),
      mat(`${p}attn_output.weight`, dim, dim, 0.5 / Math.sqrt(dim)),
      { name: `${p}ffn_norm.weight`, type: 'F32', shape: [dim], make: ones(dim) },
      mat(`${p}ffn_gate.weight`, dim, ffn, 1 / Math.sqrt(dim)),
      mat(`${p}ffn_up.weight`, dim, ffn, 1 / Math.sqrt(dim)),
      mat(`${p}ffn_down.weight`, ffn, dim, 0.5 / Math.sqrt(ffn)),
    );
  }
  plan.push(
    { name: 'output_norm.weight', type: 'F32', shape: [dim], make: ones(dim) },
    mat('output.weight', dim, N_VOCAB, 1 / Math.sqrt(dim)),
  );
  return sizeTensors(plan);
}

/** Writes the model file (to OUT.tmp, then renamed). */
export function writeModel(size, type, out, testdata) {
  const { dim, layers, ffn, heads, kvHeads } = SIZES[size];
  if (!GGML[type]?.ftype) throw new Error(`unknown type ${type} (one of ${[...TYPES, ...MORE_TYPES, ...EXTRA_TYPES].join(', ')})`);
  const tokenizerPairs = readTokenizerPairs(path.join(testdata, VOCAB_FILE));
  const plan = tensorPlan(size, type);

  const head = new Bytes();
  head.kv('general.architecture', GT.STRING, 'llama');
  head.kv('general.name', GT.STRING, `wasmlm bench ${size} ${type} (random weights)`);
  head.kv('general.file_type', GT.U32, GGML[type].ftype);
  head.kv('general.alignment', GT.U32, ALIGNMENT);
  // As long as the bench's deepest prompt (run.js --depths): wllama will not
  // open a context past the file's.
  head.kv('llama.context_length', GT.U32, 16384);
  head.kv('llama.embedding_length', GT.U32, dim);
  head.kv('llama.block_count', GT.U32, layers);
  head.kv('llama.feed_forward_length', GT.U32, ffn);
  head.kv('llama.rope.dimension_count', GT.U32, dim / heads);
  head.kv('llama.attention.head_count', GT.U32, heads);
  head.kv('llama.attention.head_count_kv', GT.U32, kvHeads);
  head.kv('llama.attention.layer_norm_rms_epsilon', GT.F32, 1e-5);
  for (const pair of tokenizerPairs) head.push(pair);
  return writeGguf(out, head, 12 + tokenizerPairs.length, plan);
}

/** The model file, generated if missing. */
export function ensureModel(size, type, dir, testdata, log = () => {}) {
  const file = path.join(dir, modelFileName(size, type));
  if (fs.existsSync(file)) return file;
  const t0 = performance.now();
  const { params, bytes } = writeModel(size, type, file, testdata);
  log(`generated ${path.basename(file)}: ${(params / 1e6).toFixed(0)}M parameters, ${(bytes / 1e6).toFixed(0)} MB in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return file;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [size, type, out] = process.argv.slice(2);
  if (!SIZES[size] || !out) {
    console.error(`usage: node gen-model.js S|M ${[...TYPES, ...MORE_TYPES].join('|')} OUT.gguf`);
    process.exit(2);
  }
  const testdata = process.env.WASMLM_TESTDATA ?? path.resolve(fileURLToPath(new URL('../../../..', import.meta.url)), 'shared', 'testdata');
  const { params, bytes } = writeModel(size, type, out, testdata);
  console.log(`${out}: ${params} parameters, ${bytes} bytes`);
}
