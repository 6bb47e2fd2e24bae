// Random-weight GGUF files of every decoder architecture, laid out as
// llama.cpp's converter (convert_hf_to_gguf.py) writes them: its tensor
// names, shapes and metadata keys (Gemma's norms stored with the +1 added,
// Phi-3's fused projections and LongRoPE factor tensors ...). Small shapes,
// the stories260K 512-token vocabulary, norm weights != 1 and logits with
// a trained model's spread (std ~ 2). Deterministic: every value comes from
// a xorshift generator seeded by the tensor's name and plain float
// arithmetic, so a file is the same bytes on every machine (the references
// in tests/reference/decoder record each file's sha256).
//
//   node tests/models/decoder-models.js [OUT_DIR]     # every model, F32 and Q8_0
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bytes, f16, GT, readTokenizerPairs, seedOf, sizeTensors, writeGguf } from './gguf-write.js';
import { vocabGgufEntries } from './vocab-gguf.js';

export const VOCAB_FILE = 'llama/stories260K/stories260K.gguf';
export const TYPES = ['F32', 'Q8_0'];
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const DEFAULT_DIR = path.join(REPO_ROOT, 'tests/.tmp/decoder-models');

// One model per feature set. Shapes: embd, layers, heads, kvHeads, headDim,
// ff; tied: no output.weight. Arch-specific settings are metadata keys
// (without the `<arch>.` prefix) and generator options.
export const DECODER_MODELS = {
  // Qwen2.5: q/k/v biases, NEOX RoPE, tied output.
  qwen2: { arch: 'qwen2', embd: 128, layers: 2, heads: 4, kvHeads: 2, headDim: 32, ff: 320, tied: true, qkvBias: true,
    keys: { 'rope.freq_base': 1e6, 'attention.layer_norm_rms_epsilon': 1e-6 } },
  // Qwen3: per-head q/k norms, head_dim * heads != embd (as Qwen3-0.6B), untied output.
  qwen3: { arch: 'qwen3', embd: 128, layers: 2, heads: 4, kvHeads: 2, headDim: 64, ff: 256, tied: false,
    keys: { 'rope.freq_base': 1e6, 'attention.layer_norm_rms_epsilon': 1e-6 } },
  // Gemma 2: pre- and post-norms, GeGLU, scaled embeddings, soft-capped scores
  // (caps small enough to bite on these weights) and logits, every other
  // layer windowed to 8 positions.
  gemma2: { arch: 'gemma2', embd: 128, layers: 4, heads: 4, kvHeads: 2, headDim: 64, ff: 256, tied: true, qGain: 3,
    keys: { 'attention.sliding_window': 8, attn_logit_softcapping: 5, final_logit_softcapping: 10,
      'attention.layer_norm_rms_epsilon': 1e-6 } },
  // Gemma 3 (4B+ style): q/k norms, 5 windowed : 1 global (two global layers),
  // global RoPE base 1e6 with linear scaling 8, windowed layers base 10000 unscaled.
  gemma3: { arch: 'gemma3', embd: 128, layers: 12, heads: 4, kvHeads: 1, headDim: 64, ff: 256, tied: true,
    keys: { 'attention.sliding_window': 8, 'rope.freq_base': 1e6, 'rope.scaling.type': 'linear', 'rope.scaling.factor': 8,
      'attention.layer_norm_rms_epsilon': 1e-6 } },
  // Gemma 3 with an explicit per-layer window pattern and a final soft-cap key.
  'gemma3-pattern': { arch: 'gemma3', embd: 128, layers: 6, heads: 2, kvHeads: 1, headDim: 64, ff: 192, tied: true,
    keys: { 'attention.sliding_window': 6, 'attention.sliding_window_pattern': [true, true, false, true, false, false],
      'rope.freq_base': 1e6, final_logit_softcapping: 12, 'attention.layer_norm_rms_epsilon': 1e-6 } },
  // Phi-3-mini: fused qkv and gate/up, NEOX RoPE, a sliding_window key llama.cpp ignores, untied.
  phi3: { arch: 'phi3', embd: 128, layers: 2, heads: 4, kvHeads: 4, headDim: 32, ff: 256, tied: false,
    keys: { 'attention.sliding_window': 2047, 'rope.dimension_count': 32, 'rope.scaling.original_context_length': 4096 } },
  // Phi-4-mini: partial rotary dimensions (24 of 32), LongRoPE long/short
  // factors and attention factor, GQA, tied.
  'phi3-longrope': { arch: 'phi3', embd: 128, layers: 2, heads: 4, kvHeads: 2, headDim: 32, ff: 256, tied: true,
    ctxTrain: 1024, longRope: { orig: 256 },
    keys: { 'attention.sliding_window': 0, 'rope.dimension_count': 24, 'rope.scaling.original_context_length': 256 } },
  // SmolLM3: every 4th layer without RoPE.
  smollm3: { arch: 'smollm3', embd: 128, layers: 4, heads: 4, kvHeads: 2, headDim: 32, ff: 256, tied: true,
    keys: { 'rope.freq_base': 5e6 } },
  // OLMo 2: norms only after attention and FFN, q/k norms over all heads, untied.
  olmo2: { arch: 'olmo2', embd: 128, layers: 2, heads: 4, kvHeads: 4, headDim: 32, ff: 256, tied: false,
    keys: { 'rope.freq_base': 5e5, 'attention.layer_norm_rms_epsilon': 1e-6 } },
  // Granite 3: embedding, residual, attention and logit multipliers.
  granite: { arch: 'granite', embd: 128, layers: 2, heads: 4, kvHeads: 2, headDim: 32, ff: 256, tied: true,
    keys: { embedding_scale: 12, residual_scale: 0.22, logit_scale: 8, 'attention.scale': 1 / 32 } },
};

// Chat test models: tiny random weights with a family's real vocabulary and
// chat template (from the npm tokenizer packages through vocab-gguf.js, or a
// vocab-only GGUF of the test data), for the chat API and the demo. Q8_0.
export const CHAT_MODELS = {
  'qwen3-chat': { arch: 'qwen3', vocab: 'qwen3', embd: 64, layers: 2, heads: 2, kvHeads: 1, headDim: 64, ff: 128, tied: true,
    keys: { 'rope.freq_base': 1e6, 'attention.layer_norm_rms_epsilon': 1e-6 } },
  'gemma2-chat': { arch: 'gemma2', vocab: 'gemma2', embd: 64, layers: 2, heads: 2, kvHeads: 1, headDim: 64, ff: 128, tied: true,
    keys: { 'attention.sliding_window': 8, 'attention.layer_norm_rms_epsilon': 1e-6 } },
  'gemma3-chat': { arch: 'gemma3', vocab: 'gemma3', embd: 64, layers: 2, heads: 2, kvHeads: 1, headDim: 64, ff: 128, tied: true,
    keys: { 'attention.sliding_window': 8, 'rope.freq_base': 1e6, 'attention.layer_norm_rms_epsilon': 1e-6 } },
  'phi3-chat': { arch: 'phi3', vocab: 'tokenizers/llamacpp-vocab/ggml-vocab-phi-3.gguf', embd: 64, layers: 2, heads: 2, kvHeads: 2,
    headDim: 32, ff: 128, tied: false, keys: { 'rope.scaling.original_context_length': 4096 } },
};

/**
 * The tokenizer.* pairs (raw GGUF bytes) of a vocabulary, and its size:
 * `vocab` a vocab-gguf.js source (qwen3, gemma3, ...) or a GGUF file of the
 * test data (its path there).
 */
export function vocabularyPairs(vocab, testdata) {
  if (vocab.endsWith('.gguf')) {
    const pairs = readTokenizerPairs(path.join(testdata, vocab), 'tokenizer.');  // the chat template too
    // tokenizer.ggml.tokens: u64 key length, key, u32 type (array), u32 element type, u64 count
    const tokens = pairs.find((p) => p.toString('utf8', 8, 8 + Number(p.readBigUInt64LE(0))) === 'tokenizer.ggml.tokens');
    return { pairs, nVocab: Number(tokens.readBigUInt64LE(8 + Number(tokens.readBigUInt64LE(0)) + 8)) };
  }
  const entries = vocabGgufEntries(vocab).filter(([key]) => key.startsWith('tokenizer.'));
  const pairs = entries.map(([key, value]) => {
    const b = new Bytes();
    b.entry(key, value);
    return b.concat();
  });
  return { pairs, nVocab: entries.find(([key]) => key === 'tokenizer.ggml.tokens')[1].value.length };
}

/** The chat model file in `dir`, generated if missing. */
export function ensureChatModel(name, testdata, dir = DEFAULT_DIR) {
  const spec = CHAT_MODELS[name];
  if (!spec) throw new Error(`unknown chat model ${name} (one of ${Object.keys(CHAT_MODELS).join(', ')})`);
  const file = path.join(dir, `${name}-Q8_0.gguf`);
  if (fs.existsSync(file)) return file;
  const { pairs, nVocab } = vocabularyPairs(spec.vocab, testdata);
  const { head, nKv } = metadata(spec, { fileType: 7, label: `chat test model (${spec.vocab})`, tokenizerPairs: pairs });
  writeGguf(file, head, nKv, sizeTensors(tensorPlan(spec, { matrix: uniformMatrix('Q8_0'), vocab: nVocab })));
  return file;
}

export function modelFileName(name, type) {
  return `${name}-${type}.gguf`;
}

// ---------------------------------------------------------------- values ----

/** n float32 values uniform with the given mean and std, from the name's seed. */
export function uniform(name, n, std, mean = 0) {
  const out = new Float32Array(n);
  let x = seedOf(name) >>> 0;
  const half = std * Math.sqrt(3);
  for (let i = 0; i < n; i++) {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    out[i] = mean + (2 * (x / 4294967296) - 1) * half;
  }
  return out;
}

/** ggml's Q8_0 (quantize_row_q8_0_ref): per 32 values d = amax / 127, q = round(x / d). */
export function quantizeQ8_0(values) {
  const nBlocks = values.length / 32;
  const out = Buffer.alloc(nBlocks * 34);
  for (let b = 0; b < nBlocks; b++) {
    let amax = 0;
    for (let j = 0; j < 32; j++) amax = Math.max(amax, Math.abs(values[b * 32 + j]));
    const d = Math.fround(amax / 127);
    const id = d ? Math.fround(1 / d) : 0;
    out.writeUInt16LE(f16(d), b * 34);
    for (let j = 0; j < 32; j++) {
      const v = Math.fround(values[b * 32 + j] * id);
      out.writeInt8(Math.sign(v) * Math.floor(Math.abs(v) + 0.5), b * 34 + 2 + j);
    }
  }
  return out;
}

// ----------------------------------------------------------------- plan ----

/** 2-D weights of the test files: uniform values, as F32 or quantized to Q8_0. */
export function uniformMatrix(type) {
  return (name, nIn, nOut, std) => ({
    type,
    make: () => (type === 'Q8_0' ? quantizeQ8_0(uniform(name, nIn * nOut, std)) : Buffer.from(uniform(name, nIn * nOut, std).buffer)),
  });
}

/**
 * The tensors llama.cpp's converter writes for the model, with their values:
 * `matrix(name, nIn, nOut, std)` gives each 2-D weight's {type, make};
 * vectors (norms, biases, RoPE factors) are F32.
 */
export function tensorPlan(spec, { matrix, vocab = 512 }) {
  const { arch, embd, layers, heads, kvHeads, headDim, ff } = spec;
  const qDim = heads * headDim, kvDim = kvHeads * headDim;
  const plan = [];
  const f32 = (name, values, shape) => plan.push({ name, type: 'F32', shape, make: () => Buffer.from(values.buffer) });
  const mat = (name, nIn, nOut, std) => plan.push({ name, shape: [nIn, nOut], ...matrix(name, nIn, nOut, std) });
  const norm = (name, n) => f32(name, uniform(name, n, 0.15, 1), [n]);
  const gemma = arch === 'gemma2' || arch === 'gemma3';
  const postNorms = gemma || arch === 'olmo2';

  // Tied: the embeddings are also the output head. They are kept small, so
  // that the layers' outputs rather than the last token's embedding dominate
  // the final hidden state (else random weights repeat one token forever),
  // and the output norm's weights bring the logits to std ~2. Gemma's are
  // scaled by sqrt(embd) on the way in.
  const embdScale = spec.keys.embedding_scale ?? 1;  // Granite's multiplier
  const embdStd = spec.tied ? 0.3 / Math.sqrt(embd) / embdScale : 1;
  mat('token_embd.weight', embd, vocab, embdStd);
  if (spec.longRope) {
    const n = spec.keys['rope.dimension_count'] / 2;
    f32('rope_factors_long.weight', Float32Array.from({ length: n }, (_, i) => 1 + (i * 7) / (n - 1)), [n]);
    f32('rope_factors_short.weight', Float32Array.from({ length: n }, (_, i) => 1 + (i * 0.5) / (n - 1)), [n]);
  }
  for (let l = 0; l < layers; l++) {
    const p = `blk.${l}.`;
    if (arch !== 'olmo2') norm(`${p}attn_norm.weight`, embd);
    const qkvStd = 1 / Math.sqrt(embd);
    if (arch === 'phi3') {
      mat(`${p}attn_qkv.weight`, embd, qDim + 2 * kvDim, qkvStd);
    } else {
      mat(`${p}attn_q.weight`, embd, qDim, qkvStd * (spec.qGain ?? 1));
      mat(`${p}attn_k.weight`, embd, kvDim, qkvStd);
      mat(`${p}attn_v.weight`, embd, kvDim, qkvStd);
    }
    if (spec.qkvBias) {
      f32(`${p}attn_q.bias`, uniform(`${p}attn_q.bias`, qDim, 0.5), [qDim]);
      f32(`${p}attn_k.bias`, uniform(`${p}attn_k.bias`, kvDim, 0.5), [kvDim]);
      f32(`${p}attn_v.bias`, uniform(`${p}attn_v.bias`, kvDim, 0.1), [kvDim]);
    }
    if (arch === 'qwen3' || arch === 'gemma3') {
      norm(`${p}attn_q_norm.weight`, headDim);
      norm(`${p}attn_k_norm.weight`, headDim);
    } else if (arch === 'olmo2') {
      norm(`${p}attn_q_norm.weight`, qDim);
      norm(`${p}attn_k_norm.weight`, kvDim);
    }
    mat(`${p}attn_output.weight`, qDim, embd, 0.5 / Math.sqrt(qDim));
    if (postNorms) norm(`${p}post_attention_norm.weight`, embd);
    if (arch !== 'olmo2') norm(`${p}ffn_norm.weight`, embd);
    if (arch === 'phi3') {
      mat(`${p}ffn_up.weight`, embd, 2 * ff, 1 / Math.sqrt(embd));
    } else {
      mat(`${p}ffn_gate.weight`, embd, ff, 1 / Math.sqrt(embd));
      mat(`${p}ffn_up.weight`, embd, ff, 1 / Math.sqrt(embd));
    }
    mat(`${p}ffn_down.weight`, ff, embd, 0.5 / Math.sqrt(ff));
    if (postNorms) norm(`${p}post_ffw_norm.weight`, embd);
  }
  const logitScale = spec.keys.logit_scale ?? 1;
  f32('output_norm.weight', uniform('output_norm.weight', embd, 0.15, (spec.tied ? (2 / 0.3) * embdScale : 1) * logitScale), [embd]);
  if (!spec.tied) mat('output.weight', embd, vocab, 2 / Math.sqrt(embd));
  return plan;
}

/** The metadata pairs (keys in the converter's order) and their count; fileType: general.file_type. */
export function metadata(spec, { fileType, label, tokenizerPairs }) {
  const { arch, embd, layers, heads, kvHeads, headDim, ff } = spec;
  const head = new Bytes();
  let n = 0;
  // The keys GGUF holds as F32 (the converter's add_* types); other numbers are U32.
  const F32_KEY = /(freq_base|scaling\.factor|attn_factor|softcapping|epsilon|scale)$/;
  const kv = (key, value) => {
    n++;
    if (typeof value === 'string') head.kv(key, GT.STRING, value);
    else if (Array.isArray(value)) head.kvArray(key, GT.BOOL, value);
    else head.kv(key, F32_KEY.test(key) ? GT.F32 : GT.U32, value);
  };
  kv('general.architecture', arch);
  // (Not the model's name: llama.cpp gives vocabularies of models named phi3 Phi-3's token attributes.)
  kv('general.name', `wasmlm random-weight ${label}`);
  kv('general.file_type', fileType);
  kv('general.alignment', 32);
  kv(`${arch}.context_length`, spec.ctxTrain ?? 2048);
  kv(`${arch}.embedding_length`, embd);
  kv(`${arch}.block_count`, layers);
  kv(`${arch}.feed_forward_length`, ff);
  kv(`${arch}.attention.head_count`, heads);
  kv(`${arch}.attention.head_count_kv`, kvHeads);
  if (headDim !== embd / heads || arch.startsWith('gemma')) {
    kv(`${arch}.attention.key_length`, headDim);
    kv(`${arch}.attention.value_length`, headDim);
  }
  if (!('attention.layer_norm_rms_epsilon' in spec.keys)) kv(`${arch}.attention.layer_norm_rms_epsilon`, 1e-5);
  if (spec.longRope) {
    // As the converter computes it from max_position_embeddings / original.
    const scale = (spec.ctxTrain ?? 2048) / spec.longRope.orig;
    kv(`${arch}.rope.scaling.attn_factor`, Math.sqrt(1 + Math.log(scale) / Math.log(spec.longRope.orig)));
  }
  for (const [key, value] of Object.entries(spec.keys)) kv(`${arch}.${key}`, value);
  for (const pair of tokenizerPairs) head.push(pair);
  return { head, nKv: n + tokenizerPairs.length };
}

/** Writes one model file; returns its path and sha256. */
export function writeDecoderModel(name, type, out, testdata) {
  const spec = DECODER_MODELS[name];
  if (!spec) throw new Error(`unknown model ${name} (one of ${Object.keys(DECODER_MODELS).join(', ')})`);
  if (!TYPES.includes(type)) throw new Error(`unknown type ${type} (one of ${TYPES.join(', ')})`);
  const tokenizerPairs = readTokenizerPairs(path.join(testdata, VOCAB_FILE));
  const { head, nKv } = metadata(spec, { fileType: type === 'Q8_0' ? 7 : 0, label: `test model (${type})`, tokenizerPairs });
  writeGguf(out, head, nKv, sizeTensors(tensorPlan(spec, { matrix: uniformMatrix(type) })));
  return { file: out, sha256: sha256(out) };
}

export function sha256(file) {
  return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

/** The model file in `dir`, generated if missing. */
export function ensureDecoderModel(name, type, testdata, dir = DEFAULT_DIR) {
  const file = path.join(dir, modelFileName(name, type));
  if (!fs.existsSync(file)) writeDecoderModel(name, type, file, testdata);
  return file;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2] ?? DEFAULT_DIR;
  const testdata = process.env.WASMLM_TESTDATA ?? path.resolve(REPO_ROOT, '..', 'shared', 'testdata');
  for (const name of Object.keys(DECODER_MODELS))
    for (const type of TYPES) {
      const { file, sha256: hash } = writeDecoderModel(name, type, path.join(dir, modelFileName(name, type)), testdata);
      console.log(`${path.relative(process.cwd(), file)}  ${hash.slice(0, 16)}  ${fs.statSync(file).size} bytes`);
    }
}
