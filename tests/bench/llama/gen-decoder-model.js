// Realistically shaped random-weight GGUFs of the other decoder
// architectures for the benchmark: Qwen3-0.6B's and Gemma-3-1B's shapes, laid
// out as the decoder test models are (tests/models/decoder-models.js: llama.cpp
// converter's names, shapes and keys), with the models' real vocabularies
// (tests/models/vocab-gguf.js, from the npm tokenizer packages) and weights
// drawn on each type's grid (gguf-write.js). A matrix whose rows a K-quant
// cannot hold (Gemma's 1152) takes llama-quantize's fallback type (Q4_K ->
// Q5_0), as a real Q4_K_M file of Gemma-3-1B does.
//
//   node tests/bench/llama/gen-decoder-model.js Qwen3-0.6B Q4_0 OUT.gguf
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { metadata, tensorPlan, vocabularyPairs } from '../../models/decoder-models.js';
import { GGML, quantizedMatrix, seedOf, sizeTensors, writeGguf } from '../../models/gguf-write.js';

// ff, heads, ... as in each model's config.json; vocab: its tokenizer.
export const DECODER_SIZES = {
  'Qwen3-0.6B': { arch: 'qwen3', vocab: 'qwen3', embd: 1024, layers: 28, heads: 16, kvHeads: 8, headDim: 128,
    ff: 3072, tied: true, ctxTrain: 40960, keys: { 'rope.freq_base': 1e6, 'attention.layer_norm_rms_epsilon': 1e-6 } },
  'Gemma-3-1B': { arch: 'gemma3', vocab: 'gemma3', embd: 1152, layers: 26, heads: 4, kvHeads: 1, headDim: 256,
    ff: 6912, tied: true, ctxTrain: 32768,
    keys: { 'attention.sliding_window': 512, 'rope.freq_base': 1e6, 'attention.layer_norm_rms_epsilon': 1e-6 } },
};

// llama-quantize's fallbacks for rows that are not whole 256-blocks.
const FALLBACK = { Q4_K: 'Q5_0' };

export function decoderModelFileName(size, type) {
  return `${size.toLowerCase()}-${type}.gguf`;
}

export function writeDecoderModel(size, type, out) {
  const spec = DECODER_SIZES[size];
  if (!spec) throw new Error(`unknown size ${size} (one of ${Object.keys(DECODER_SIZES).join(', ')})`);
  if (!GGML[type]?.ftype) throw new Error(`unknown type ${type}`);
  const matrix = (name, nIn, nOut, std) => {
    const t = nIn % GGML[type].block === 0 ? type : FALLBACK[type];
    return { type: t, make: () => quantizedMatrix(t, nIn, nOut, std, seedOf(name)) };
  };
  const { pairs, nVocab } = vocabularyPairs(spec.vocab);
  const plan = sizeTensors(tensorPlan(spec, { matrix, vocab: nVocab }));
  const { head, nKv } = metadata(spec, { fileType: GGML[type].ftype, label: `${size} ${type}`, tokenizerPairs: pairs });
  return writeGguf(out, head, nKv, plan);
}

/** The model file, generated if missing. */
export function ensureDecoderModel(size, type, dir, log = () => {}) {
  const file = path.join(dir, decoderModelFileName(size, type));
  if (fs.existsSync(file)) return file;
  const t0 = performance.now();
  const { params, bytes } = writeDecoderModel(size, type, file);
  log(`generated ${path.basename(file)}: ${(params / 1e6).toFixed(0)}M parameters, ${(bytes / 1e6).toFixed(0)} MB in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return file;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [size, type, out] = process.argv.slice(2);
  if (!DECODER_SIZES[size] || !out) {
    console.error(`usage: node gen-decoder-model.js ${Object.keys(DECODER_SIZES).join('|')} Q8_0|Q4_0|Q4_K OUT.gguf`);
    process.exit(2);
  }
  const { params, bytes } = writeDecoderModel(size, type, out);
  console.log(`${out}: ${params} parameters, ${bytes} bytes`);
}
