// Writes a llama.cpp GGJT v3 LLaMA file (the test data's
// legacy/TinyLLama-v0.ggmlv3.q4_0.bin) as the GGUF llama.cpp's own
// convert_llama_ggml_to_gguf.py makes of it, so native llama.cpp can be run
// on the same weights and vocabulary for a reference:
//  - hyperparameters as llama.* keys: n_ff from n_mult as llama.cpp's old
//    loader did, rope dimension count = n_rot, context length 2048 and RMS
//    epsilon 5e-6 (the converter's defaults: GGJT stored neither);
//  - the vocabulary: ids 0-2 <unk>/<s>/</s>, empty tokens control, one-byte
//    tokens 3-258 the byte tokens <0xXX>, spaces in the rest U+2581; scores
//    as stored; bos 1, eos 2, unk 0;
//  - the tensors under GGUF names (token_embd, blk.N.attn_q, ...), their
//    bytes copied as stored. Q/K are NOT permuted: llama.cpp's old convert.py
//    had already put them in its rotary layout.
//
//   node tests/reference/legacy/ggjt-to-gguf.js [IN.bin [OUT.gguf]]
// Default: the test data's TinyLLama-v0 to tests/.tmp/legacy/TinyLLama-v0.ggjt.gguf
// (never into the repository). Skips the work when OUT is newer than IN.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bytes, GGML, GT, writeGguf } from '../../models/gguf-write.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const testdata = process.env.WASMLM_TESTDATA ?? path.resolve(root, '..', 'shared', 'testdata');
export const GGJT_FILE = path.join(testdata, 'legacy/TinyLLama-v0.ggmlv3.q4_0.bin');
export const GGUF_OUT = path.join(root, 'tests/.tmp/legacy/TinyLLama-v0.ggjt.gguf');

const TYPE_BY_ID = Object.fromEntries(Object.entries(GGML).map(([name, t]) => [t.id, name]));
const LAYER_NAMES = {
  'attention.wq.weight': 'attn_q.weight', 'attention.wk.weight': 'attn_k.weight',
  'attention.wv.weight': 'attn_v.weight', 'attention.wo.weight': 'attn_output.weight',
  'feed_forward.w1.weight': 'ffn_gate.weight', 'feed_forward.w2.weight': 'ffn_down.weight',
  'feed_forward.w3.weight': 'ffn_up.weight', 'attention_norm.weight': 'attn_norm.weight',
  'ffn_norm.weight': 'ffn_norm.weight',
};
const MODEL_NAMES = { 'tok_embeddings.weight': 'token_embd.weight', 'norm.weight': 'output_norm.weight', 'output.weight': 'output.weight' };

function ggufName(name) {
  if (name in MODEL_NAMES) return MODEL_NAMES[name];
  const m = /^layers\.(\d+)\.(.+)$/.exec(name);
  if (m && m[2] in LAYER_NAMES) return `blk.${m[1]}.${LAYER_NAMES[m[2]]}`;
  throw new Error(`no GGUF name for tensor ${name}`);
}

/** The GGJT v3 file's hyperparameters, vocabulary and tensors (data as views of `buf`). */
export function readGgjt(buf) {
  let o = 0;
  const u32 = () => { const v = buf.readUInt32LE(o); o += 4; return v; };
  if (u32() !== 0x67676a74) throw new Error('not a GGJT file (magic ggjt)');
  const version = u32();
  if (version !== 3) throw new Error(`GGJT version ${version}: only v3 quantized blocks are GGUF's`);
  const [nVocab, nEmbd, nMult, nHead, nLayer, nRot, ftype] = Array.from({ length: 7 }, u32);
  const vocab = [];
  for (let i = 0; i < nVocab; i++) {
    const len = u32();
    const bytes = buf.subarray(o, o + len);
    o += len;
    const score = buf.readFloatLE(o);
    o += 4;
    vocab.push({ bytes, score });
  }
  const tensors = [];
  while (o < buf.length) {
    const nDims = u32(), nameLen = u32(), typeId = u32();
    const shape = Array.from({ length: nDims }, u32);
    const name = buf.subarray(o, o + nameLen).toString('utf8');
    o += nameLen;
    o = (o + 31) & ~31;
    const type = TYPE_BY_ID[typeId];
    if (!type) throw new Error(`${name}: ggml type ${typeId} is not handled here`);
    const n = shape.reduce((a, b) => a * b, 1);
    const nbytes = (n / GGML[type].block) * GGML[type].bytes;
    tensors.push({ name, shape, type, data: buf.subarray(o, o + nbytes) });
    o += nbytes;
  }
  if (o !== buf.length) throw new Error('tensor data runs past the end of the file');
  return { hp: { nVocab, nEmbd, nMult, nHead, nLayer, nRot, ftype }, vocab, tensors };
}

/** convert_llama_ggml_to_gguf.py's token text and type for id `id`. */
function ggufToken(id, bytes) {
  if (id <= 2) return id === 0 ? ['<unk>', 2] : [id === 1 ? '<s>' : '</s>', 3];
  if (bytes.length === 0) return ['', 3];
  if (id <= 258 && bytes.length === 1) return [`<0x${bytes[0].toString(16).toUpperCase().padStart(2, '0')}>`, 6];
  return [bytes.toString('utf8').replaceAll(' ', '\u2581'), 1];
}

export function ggjtToGguf(input = GGJT_FILE, out = GGUF_OUT) {
  if (fs.existsSync(out) && fs.statSync(out).mtimeMs >= fs.statSync(input).mtimeMs &&
      fs.statSync(out).mtimeMs >= fs.statSync(fileURLToPath(import.meta.url)).mtimeMs) return out;
  const { hp, vocab, tensors } = readGgjt(fs.readFileSync(input));
  const nFf = Math.floor((Math.floor((2 * (4 * hp.nEmbd)) / 3) + hp.nMult - 1) / hp.nMult) * hp.nMult;
  const head = new Bytes();
  let nKv = 0;
  const kv = (key, type, value) => { head.kv(key, type, value); nKv++; };
  const kvArray = (key, type, values) => { head.kvArray(key, type, values); nKv++; };
  kv('general.architecture', GT.STRING, 'llama');
  kv('general.name', GT.STRING, path.basename(input));
  kv('general.file_type', GT.U32, hp.ftype);
  kv('llama.context_length', GT.U32, 2048);
  kv('llama.embedding_length', GT.U32, hp.nEmbd);
  kv('llama.block_count', GT.U32, hp.nLayer);
  kv('llama.feed_forward_length', GT.U32, nFf);
  kv('llama.rope.dimension_count', GT.U32, hp.nRot);
  kv('llama.attention.head_count', GT.U32, hp.nHead);
  kv('llama.attention.head_count_kv', GT.U32, hp.nHead);
  kv('llama.attention.layer_norm_rms_epsilon', GT.F32, 5e-6);
  kv('tokenizer.ggml.model', GT.STRING, 'llama');
  const converted = vocab.map((t, id) => ggufToken(id, t.bytes));
  kvArray('tokenizer.ggml.tokens', GT.STRING, converted.map(([text]) => text));
  kvArray('tokenizer.ggml.scores', GT.F32, vocab.map((t) => t.score));
  kvArray('tokenizer.ggml.token_type', GT.I32, converted.map(([, type]) => type));
  kv('tokenizer.ggml.unknown_token_id', GT.U32, 0);
  kv('tokenizer.ggml.bos_token_id', GT.U32, 1);
  kv('tokenizer.ggml.eos_token_id', GT.U32, 2);
  const plan = tensors.map((t) => ({ name: ggufName(t.name), shape: t.shape, type: t.type, nbytes: t.data.length, make: () => t.data }));
  writeGguf(out, head, nKv, plan);
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [input = GGJT_FILE, out = GGUF_OUT] = process.argv.slice(2);
  if (!fs.existsSync(input)) {
    console.error(`ggjt-to-gguf: ${input} not found`);
    process.exit(1);
  }
  console.log(path.relative(process.cwd(), ggjtToGguf(input, out)));
}
