// Deterministic RWKV v6 / v7 GGUF files for the benchmark, laid out as
// llama.cpp's convert_hf_to_gguf.py (Rwkv6Model, Rwkv7Model) writes them
// (native/model/rwkv_gguf_loader.cpp lists the mapping) and then
// llama-quantize leaves them: the shape of the 0.1B World models (dim 768,
// 12 layers, head size 64), the RWKV World vocabulary, random weights.
//
// Types: the projection matrices (time_mix_{receptance,key,value,gate,output},
// channel_mix_*) and token_embd/output in the named type (F16, Q8_0 or Q5_1);
// the LoRA matrices llama-quantize never quantizes stay as the F16 conversion
// has them: F32 where the converter forces F32 (rwkv6 time_mix_w1/w2,
// decay_w1/w2, time_mix_first, lerp_fused; rwkv7 time_mix_w1/w2), F16 for the
// other 2-D ones (rwkv7 a1/a2, v1/v2, g1/g2); 1-D tensors F32.
// Weights are drawn as gen-model.js draws them (seeded by tensor name, on each
// type's grid), with scales that keep the activations O(1): logits with std ~ 1,
// decays w = exp(-exp(.)) in about 0.7..0.996.
//
//   node tests/bench/llama/gen-rwkv-model.js rwkv6|rwkv7 F16|Q8_0|Q5_1 OUT.gguf
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ALIGNMENT, Bytes, fillRandom, GGML, GT, quantizedMatrix, seedOf, sizeTensors, writeGguf } from '../../models/gguf-write.js';
import { N_VOCAB, rwkvWorldVocab } from './rwkv-world-vocab.js';

export const RWKV_ARCHS = ['rwkv6', 'rwkv7'];
export const RWKV_TYPES = ['F16', 'Q8_0', 'Q5_1'];
const VOCAB_FILE = 'tokenizers/rwkv-world/rwkv_vocab_v20230424.txt';
const DIM = 768;
const LAYERS = 12;
const HEAD_SIZE = 64;
// the converter's defaults for this width
const V6 = { ffn: Math.floor((DIM * 3.5) / 32) * 32, mixRank: 32, decayRank: 64 };
const loraRank = (exponent, multiplier) => Math.max(1, Math.round((DIM ** exponent * multiplier) / 32)) * 32;
const V7 = { ffn: DIM * 4, decay: loraRank(0.5, 1.8), iclr: loraRank(0.5, 1.8), value: loraRank(0.5, 1.3), gate: loraRank(0.8, 0.6) };
export const RWKV_EOT = 261; // "\n\n", the converter's EOT (an end-of-generation token for llama.cpp)

export function rwkvModelFileName(arch, type) {
  return `${arch}-S-${type}.gguf`;
}

/** n float32s uniform in [lo, hi), seeded by `seed`, as bytes. */
function uniformF32(n, lo, hi, seed) {
  const words = new Uint32Array(n);
  fillRandom(new Uint8Array(words.buffer), seed);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = lo + ((hi - lo) * words[i]) / 2 ** 32;
  return new Uint8Array(out.buffer);
}

/** The tensor list: name, type, shape (ne0 first), data generator. */
function tensorPlan(arch, type) {
  const C = DIM;
  const v7 = arch === 'rwkv7';
  const F = v7 ? V7.ffn : V6.ffn;
  const constant = (v) => () => new Uint8Array(new Float32Array(C).fill(v).buffer);
  const vec = (name, lo, hi, shape = [C]) => ({ name, type: 'F32', shape, make: () => uniformF32(C, lo, hi, seedOf(name)) });
  // a matrix of nOut rows of nIn, element std sigma; `seedName` lets block 0's dummy v LoRA copy the a LoRA
  const mat = (name, t, nIn, nOut, sigma, shape = [nIn, nOut], seedName = name) => ({
    name, type: t, shape,
    make: () => (t === 'F32'
      ? uniformF32(nIn * nOut, -sigma * Math.sqrt(3), sigma * Math.sqrt(3), seedOf(seedName))
      : quantizedMatrix(t, nIn, nOut, sigma, seedOf(seedName))),
  });
  const norm = (prefix) => [
    { name: `${prefix}.weight`, type: 'F32', shape: [C], make: constant(1) },
    { name: `${prefix}.bias`, type: 'F32', shape: [C], make: constant(0) },
  ];
  const big = (name, nIn, nOut, gain = 1) => mat(name, type, nIn, nOut, gain / Math.sqrt(nIn));

  const plan = [big('token_embd.weight', C, N_VOCAB, Math.sqrt(C)), ...norm('token_embd_norm')];
  for (let l = 0; l < LAYERS; l++) {
    const b = `blk.${l}.`;
    const t = `${b}time_mix_`;
    const c = `${b}channel_mix_`;
    plan.push(...norm(`${b}attn_norm`), ...norm(`${b}attn_norm_2`));
    if (v7) {
      const lora = (part, rank, t1, gain2, seedPart = part) => [
        mat(`${t}${part}1.weight`, t1, C, rank, 1 / Math.sqrt(C), undefined, `${t}${seedPart}1.weight`),
        mat(`${t}${part}2.weight`, t1, rank, C, gain2 / Math.sqrt(rank), undefined, `${t}${seedPart}2.weight`),
      ];
      plan.push(
        { name: `${t}lerp_fused.weight`, type: 'F32', shape: [C, 1, 1, 6], make: () => uniformF32(6 * C, 0, 1, seedOf(`${t}lerp_fused.weight`)) },
        vec(`${t}w0.weight`, -5, -1), ...lora('w', V7.decay, 'F32', 0.3),
        vec(`${t}a0.weight`, -1, 1), ...lora('a', V7.iclr, 'F16', 0.5),
      );
      if (l === 0) {
        // the converter's dummies (copies of a0/a1/a2) so llama.cpp's loader finds them; never read
        plan.push({ ...vec(`${t}v0.weight`, -1, 1), make: () => uniformF32(C, -1, 1, seedOf(`${t}a0.weight`)) },
          ...lora('v', V7.iclr, 'F16', 0.5, 'a'));
      } else {
        plan.push(vec(`${t}v0.weight`, -1, 1), ...lora('v', V7.value, 'F16', 0.5));
      }
      plan.push(
        ...lora('g', V7.gate, 'F16', 1),
        vec(`${t}k_k.weight`, 0.5, 1.5), vec(`${t}k_a.weight`, 0, 1), vec(`${t}r_k.weight`, -0.5, 0.5),
        big(`${t}key.weight`, C, C), big(`${t}value.weight`, C, C), big(`${t}receptance.weight`, C, C),
        ...norm(`${t}ln`), big(`${t}output.weight`, C, C, 0.5),
        vec(`${c}lerp_k.weight`, 0, 1), big(`${c}key.weight`, C, F), big(`${c}value.weight`, F, C, 0.5),
      );
    } else {
      const D = V6.mixRank;
      const Dd = V6.decayRank;
      plan.push(
        vec(`${t}lerp_x.weight`, 0, 1),
        { name: `${t}lerp_fused.weight`, type: 'F32', shape: [C, 1, 1, 5], make: () => uniformF32(5 * C, 0, 1, seedOf(`${t}lerp_fused.weight`)) },
        mat(`${t}w1.weight`, 'F32', C, 5 * D, 0.5 / Math.sqrt(C)),
        mat(`${t}w2.weight`, 'F32', D, 5 * C, 0.1 / Math.sqrt(D), [D, C, 5]),
        vec(`${t}decay.weight`, -5, -1),
        mat(`${t}decay_w1.weight`, 'F32', C, Dd, 0.5 / Math.sqrt(C)),
        mat(`${t}decay_w2.weight`, 'F32', Dd, C, 0.3 / Math.sqrt(Dd)),
        { ...vec(`${t}first.weight`, -0.5, 0.5), shape: [HEAD_SIZE, C / HEAD_SIZE] },
        big(`${t}key.weight`, C, C), big(`${t}value.weight`, C, C), big(`${t}receptance.weight`, C, C),
        big(`${t}gate.weight`, C, C), ...norm(`${t}ln`), big(`${t}output.weight`, C, C, 0.5),
        vec(`${c}lerp_k.weight`, 0, 1), vec(`${c}lerp_r.weight`, 0, 1),
        big(`${c}key.weight`, C, F), big(`${c}receptance.weight`, C, C), big(`${c}value.weight`, F, C, 0.5),
      );
    }
  }
  plan.push(...norm('output_norm'), big('output.weight', C, N_VOCAB));
  return sizeTensors(plan);
}

/** Writes the model file (to OUT.tmp, then renamed). */
export function writeRwkvModel(arch, type, out, testdata) {
  if (!RWKV_ARCHS.includes(arch)) throw new Error(`unknown architecture ${arch} (one of ${RWKV_ARCHS.join(', ')})`);
  if (!RWKV_TYPES.includes(type)) throw new Error(`unknown type ${type} (one of ${RWKV_TYPES.join(', ')})`);
  const vocab = rwkvWorldVocab(path.join(testdata, VOCAB_FILE));
  const plan = tensorPlan(arch, type);
  const v7 = arch === 'rwkv7';
  const head = new Bytes();
  let nKv = 0;
  const kv = (key, t, value) => { head.kv(key, t, value); nKv++; };
  kv('general.architecture', GT.STRING, arch);
  kv('general.name', GT.STRING, `wasmlm bench ${arch} S ${type} (random weights)`);
  kv('general.file_type', GT.U32, GGML[type].ftype);
  if (type !== 'F16') kv('general.quantization_version', GT.U32, 2);
  kv('general.alignment', GT.U32, ALIGNMENT);
  kv(`${arch}.context_length`, GT.U32, 1048576); // as the converter: RWKV isn't context limited
  kv(`${arch}.embedding_length`, GT.U32, DIM);
  kv(`${arch}.block_count`, GT.U32, LAYERS);
  kv(`${arch}.attention.layer_norm_epsilon`, GT.F32, 1e-5);
  kv(`${arch}.wkv.head_size`, GT.U32, HEAD_SIZE);
  if (v7) {
    kv(`${arch}.attention.decay_lora_rank`, GT.U32, V7.decay);
    kv(`${arch}.attention.iclr_lora_rank`, GT.U32, V7.iclr);
    kv(`${arch}.attention.value_residual_mix_lora_rank`, GT.U32, V7.value);
    kv(`${arch}.attention.gate_lora_rank`, GT.U32, V7.gate);
  } else {
    kv(`${arch}.rescale_every_n_layers`, GT.U32, 0);
    kv(`${arch}.time_mix_extra_dim`, GT.U32, V6.mixRank);
    kv(`${arch}.time_decay_extra_dim`, GT.U32, V6.decayRank);
  }
  kv(`${arch}.feed_forward_length`, GT.U32, v7 ? V7.ffn : V6.ffn);
  kv(`${arch}.attention.head_count`, GT.U32, 0); // "required by llama.cpp, unused"
  kv('tokenizer.ggml.model', GT.STRING, 'rwkv');
  head.kvArray('tokenizer.ggml.tokens', GT.STRING, vocab.tokens);
  head.kvArray('tokenizer.ggml.token_type', GT.I32, vocab.types);
  nKv += 2;
  kv('tokenizer.ggml.bos_token_id', GT.U32, 0);
  kv('tokenizer.ggml.eos_token_id', GT.U32, 0);
  kv('tokenizer.ggml.eot_token_id', GT.U32, RWKV_EOT);
  return writeGguf(out, head, nKv, plan);
}

/** The model file, generated if missing. */
export function ensureRwkvModel(arch, type, dir, testdata, log = () => {}) {
  const file = path.join(dir, rwkvModelFileName(arch, type));
  if (fs.existsSync(file)) return file;
  const t0 = performance.now();
  const { params, bytes } = writeRwkvModel(arch, type, file, testdata);
  log(`generated ${path.basename(file)}: ${(params / 1e6).toFixed(0)}M parameters, ${(bytes / 1e6).toFixed(0)} MB in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return file;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [arch, type, out] = process.argv.slice(2);
  if (!RWKV_ARCHS.includes(arch) || !out) {
    console.error('usage: node gen-rwkv-model.js rwkv6|rwkv7 F16|Q8_0|Q5_1 OUT.gguf');
    process.exit(2);
  }
  const testdata = process.env.WASMLM_TESTDATA ?? path.resolve(fileURLToPath(new URL('../../../..', import.meta.url)), 'shared', 'testdata');
  const { params, bytes } = writeRwkvModel(arch, type, out, testdata);
  console.log(`${out}: ${params} parameters, ${bytes} bytes`);
}
