// The GGUF-writing and weight-drawing helpers shared by the model generators
// (tests/bench/llama: gen-model.js, gen-rwkv-model.js; tests/models:
// decoder-models.js).
import fs from 'node:fs';
import path from 'node:path';

export const ALIGNMENT = 32;

// ggml type ids, block sizes, bytes per block; llama_ftype for general.file_type.
export const GGML = {
  F32: { id: 0, block: 1, bytes: 4 },
  F16: { id: 1, block: 1, bytes: 2, ftype: 1 },
  Q4_0: { id: 2, block: 32, bytes: 18, ftype: 2 },
  Q5_0: { id: 6, block: 32, bytes: 22, ftype: 8 },
  Q5_1: { id: 7, block: 32, bytes: 24, ftype: 9 },
  Q8_0: { id: 8, block: 32, bytes: 34, ftype: 7 },
  Q4_K: { id: 12, block: 256, bytes: 144, ftype: 15 }, // MOSTLY_Q4_K_M
  Q5_K: { id: 13, block: 256, bytes: 176, ftype: 17 }, // MOSTLY_Q5_K_M
  IQ2_XS: { id: 17, block: 256, bytes: 74, ftype: 20 },
  IQ3_XXS: { id: 18, block: 256, bytes: 98, ftype: 23 },
  IQ4_XS: { id: 23, block: 256, bytes: 136, ftype: 30 },
  TQ2_0: { id: 35, block: 256, bytes: 66, ftype: 37 },
  MXFP4: { id: 39, block: 32, bytes: 17, ftype: 38 }, // MOSTLY_MXFP4_MOE
};

// GGUF metadata value types.
export const GT = { U8: 0, I8: 1, U16: 2, I16: 3, U32: 4, I32: 5, F32: 6, BOOL: 7, STRING: 8, ARRAY: 9, U64: 10, I64: 11, F64: 12 };
export const GT_SIZE = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };

export class Bytes {
  parts = [];
  length = 0;
  push(b) { this.parts.push(b); this.length += b.length; }
  u32(v) { const b = Buffer.alloc(4); b.writeUInt32LE(v); this.push(b); }
  i32(v) { const b = Buffer.alloc(4); b.writeInt32LE(v); this.push(b); }
  u64(v) { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); this.push(b); }
  f32(v) { const b = Buffer.alloc(4); b.writeFloatLE(v); this.push(b); }
  str(s) { const b = Buffer.from(s, 'utf8'); this.u64(b.length); this.push(b); }
  kv(key, type, value) {
    this.str(key);
    this.u32(type);
    if (type === GT.STRING) this.str(value);
    else if (type === GT.U32) this.u32(value);
    else if (type === GT.F32) this.f32(value);
    else if (type === GT.BOOL) this.push(Buffer.from([value ? 1 : 0]));
    else throw new Error(`kv type ${type}`);
  }
  /** An array pair of strings, i32s, f32s or bools. */
  kvArray(key, elemType, values) {
    this.str(key);
    this.u32(GT.ARRAY);
    this.u32(elemType);
    this.u64(values.length);
    if (elemType === GT.STRING) for (const v of values) this.str(v);
    else if (elemType === GT.I32) this.push(Buffer.from(new Int32Array(values).buffer));
    else if (elemType === GT.F32) this.push(Buffer.from(new Float32Array(values).buffer));
    else if (elemType === GT.BOOL) this.push(Buffer.from(values.map((v) => (v ? 1 : 0))));
    else throw new Error(`array type ${elemType}`);
  }
  /**
   * A pair from a typed value: {type: 'u32' | 'i32' | 'f32' | 'bool' | 'string', value}
   * or {type: 'array', elem: 'string' | 'i32' | 'f32' | 'bool', value: [...]}.
   */
  entry(key, { type, elem, value }) {
    const SCALAR = { u32: GT.U32, f32: GT.F32, bool: GT.BOOL, string: GT.STRING };
    const ELEM = { string: GT.STRING, i32: GT.I32, f32: GT.F32, bool: GT.BOOL };
    if (type === 'array') {
      if (!(elem in ELEM)) throw new Error(`${key}: unknown array element type ${elem}`);
      this.kvArray(key, ELEM[elem], value);
    } else if (type === 'i32') {
      this.str(key);
      this.u32(GT.I32);
      this.i32(value);
    } else {
      if (!(type in SCALAR)) throw new Error(`${key}: unknown type ${type}`);
      this.kv(key, SCALAR[type], value);
    }
  }
  concat() { return Buffer.concat(this.parts); }
}

/** A GGUF v3 file of metadata only (a vocab-only file), from [key, typed value] entries in file order. */
export function writeMetadataGguf(out, entries) {
  const head = new Bytes();
  for (const [key, value] of entries) head.entry(key, value);
  return writeGguf(out, head, entries.length, []);
}

/** float32 -> IEEE half bits, round to nearest even, with subnormals. */
export function f16(x) {
  const u = new Uint32Array(new Float32Array([x]).buffer)[0];
  const sign = (u >>> 16) & 0x8000;
  const e = ((u >>> 23) & 0xff) - 127 + 15;
  let m = u & 0x7fffff;
  if (e >= 31) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    m |= 0x800000;
    const shift = 14 - e;
    let h = m >>> shift;
    const rem = m & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    if (rem > half || (rem === half && (h & 1))) h++;
    return sign | h;
  }
  let h = (e << 10) | (m >>> 13);
  const rem = m & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (h & 1))) h++;
  return sign | h;
}

/** FNV-1a of a string: the per-tensor seed. */
export function seedOf(name) {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return (h >>> 0) || 1;
}

/** Fills bytes with xorshift32 output seeded by `seed`. */
export function fillRandom(bytes, seed) {
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length >>> 2);
  let x = seed >>> 0;
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    words[i] = x;
  }
  for (let i = words.length * 4; i < bytes.length; i++) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    bytes[i] = x;
  }
}

/**
 * One weight matrix (nIn x nOut, rows of nIn) of `type` with element std ~ sigma:
 * random quants, then each block's scale fields set (scales vary by +-25%).
 * F16: uniform on 256 levels in [-sigma √3, sigma √3].
 */
// The weights' std in units of d for the types whose blocks are any bits
// after an fp16 d (quantizedMatrix):
// - IQ2_XS {half d, u16 qs[32] (9-bit grid index, 7-bit sign index), u8
//   scales[8]}: w = d (0.5 + s) / 4 * grid * sign, std ~ 67 d;
// - IQ3_XXS {half d, u8 qs[96]}: 64 grid indexes, then 8 u32 of four 7-bit
//   sign indexes and a 4-bit scale: w = d (0.5 + s) / 2 * grid * sign, std ~ 172 d;
// - IQ4_XS {half d, u16 scales_h, u8 scales_l[4], u8 qs[128]}: w = d (ls -
//   32) kvalues_iq4nl[nibble], 6-bit ls (rms 18.5) and table values (rms
//   67.4): std ~ 1247 d.
const D_FIRST_STD = { IQ2_XS: 67, IQ3_XXS: 172, IQ4_XS: 1247 };

export function quantizedMatrix(type, nIn, nOut, sigma, seed) {
  const t = GGML[type];
  const nBlocks = (nIn / t.block) * nOut;
  const bytes = new Uint8Array(nBlocks * t.bytes + 4);
  fillRandom(bytes, seed);
  // 64 scale variants: base * [0.75, 1.25]
  const variants = (base) => Array.from({ length: 64 }, (_, k) => f16(base * (0.75 + (0.5 * k) / 63)));
  if (type === 'Q8_0') {
    // quants uniform in [-127, 127], zero-mean (ggml never writes -128: it becomes 0): std 73.3
    const d = variants(sigma / 73.6);
    for (let b = 0, at = 0; b < nBlocks; b++, at += 34) {
      const h = d[bytes[at] & 63];
      bytes[at] = h & 0xff;
      bytes[at + 1] = h >>> 8;
      for (let i = at + 2; i < at + 34; i++) if (bytes[i] === 0x80) bytes[i] = 0;
    }
  } else if (type === 'Q4_0') {
    // nibbles 0..15 -> q - 8, zero-mean (nibble 0 becomes 8): std 4.32.
    // (A non-zero mean gives every row an offset; with random weights one
    // token then wins every step.)
    const d = variants(sigma / 4.32);
    for (let b = 0, at = 0; b < nBlocks; b++, at += 18) {
      const h = d[bytes[at] & 63];
      bytes[at] = h & 0xff;
      bytes[at + 1] = h >>> 8;
      for (let i = at + 2; i < at + 18; i++) {
        let v = bytes[i];
        if ((v & 0x0f) === 0) v |= 0x08;
        if ((v & 0xf0) === 0) v |= 0x80;
        bytes[i] = v;
      }
    }
  } else if (type === 'Q5_0') {
    // block_q5_0 {half d, u8 qh[4], u8 qs[16]}: w = d*(q - 16), q in 0..31
    // random, zero-mean (q 0 becomes 16; element j's fifth bit is qh bit j): std d * 8.94
    const d = variants(sigma / 8.94);
    for (let b = 0, at = 0; b < nBlocks; b++, at += 22) {
      const h = d[bytes[at] & 63];
      bytes[at] = h & 0xff;
      bytes[at + 1] = h >>> 8;
      const view = new DataView(bytes.buffer, bytes.byteOffset);
      let qh = view.getUint32(at + 2, true);
      for (let j = 0; j < 32; j++) {
        const nibble = j < 16 ? bytes[at + 6 + j] & 0x0f : bytes[at + 6 + j - 16] >> 4;
        if (nibble === 0 && ((qh >>> j) & 1) === 0) qh |= 1 << j;
      }
      view.setUint32(at + 2, qh >>> 0, true);
    }
  } else if (type === 'Q5_1') {
    // block_q5_1 {half d, half m, u8 qh[4], u8 qs[16]}: w = d*q + m, q in 0..31
    // (random bits); m = -15.5 d makes it zero-mean: std d * 9.23
    const k = Array.from({ length: 64 }, (_, i) => 0.75 + (0.5 * i) / 63);
    const d = k.map((s) => f16((s * sigma) / 9.23));
    const m = k.map((s) => f16((-15.5 * s * sigma) / 9.23));
    for (let b = 0, at = 0; b < nBlocks; b++, at += 24) {
      const v = bytes[at] & 63;
      bytes[at] = d[v] & 0xff;
      bytes[at + 1] = d[v] >>> 8;
      bytes[at + 2] = m[v] & 0xff;
      bytes[at + 3] = m[v] >>> 8;
    }
  } else if (type === 'F16') {
    const levels = Uint16Array.from({ length: 256 }, (_, q) => f16(sigma * Math.sqrt(3) * ((q + 0.5) / 128 - 1)));
    for (let i = 0; i < nBlocks * 2; i += 2) {
      const h = levels[bytes[i]];
      bytes[i] = h & 0xff;
      bytes[i + 1] = h >>> 8;
    }
  } else if (type === 'Q4_K' || type === 'Q5_K') {
    // w = d*sc*q - dmin*m with 6-bit sc = m in [8, 15] and dmin = (levels - 1) / 2 * d,
    // q random in 0..levels - 1: w = d*sc*(q - 7.5), std ~ d * 11.5 * 4.61 (Q4_K),
    // w = d*sc*(q - 15.5), std ~ d * 11.5 * 9.23 (Q5_K, its fifth bits random in qh)
    const [mid, qStd] = type === 'Q4_K' ? [7.5, 4.61] : [15.5, 9.23];
    const base = sigma / (11.5 * qStd);
    const d = variants(base);
    const dmin = variants(mid * base);
    const sc = new Uint8Array(8);
    for (let b = 0, at = 0; b < nBlocks; b++, at += t.bytes) {
      const k = bytes[at] & 63;
      const s = at + 4; // scales[12]
      for (let j = 0; j < 8; j++) sc[j] = 8 + ((bytes[s + j] >>> 3) & 7);
      // ggml's packing (quantize_row_q4_K_ref), with m = sc
      for (let j = 0; j < 4; j++) {
        bytes[s + j] = (sc[j] & 63) | ((sc[j + 4] >> 4) << 6);
        bytes[s + j + 4] = (sc[j] & 63) | ((sc[j + 4] >> 4) << 6);
        bytes[s + j + 8] = (sc[j + 4] & 0xf) | ((sc[j + 4] & 0xf) << 4);
      }
      bytes[at] = d[k] & 0xff;
      bytes[at + 1] = d[k] >>> 8;
      bytes[at + 2] = dmin[k] & 0xff;
      bytes[at + 3] = dmin[k] >>> 8;
    }
  } else if (type in D_FIRST_STD) {
    // Types whose blocks are any bits after an fp16 d in bytes 0-1: d set so
    // that the weights' std is sigma.
    const d = variants(sigma / D_FIRST_STD[type]);
    for (let b = 0, at = 0; b < nBlocks; b++, at += t.bytes) {
      const h = d[bytes[at] & 63];
      bytes[at] = h & 0xff;
      bytes[at + 1] = h >>> 8;
    }
  } else if (type === 'TQ2_0') {
    // block_tq2_0 {u8 qs[64], half d}: 2-bit fields t + 1, t in {-1, 0, 1}
    // (the pattern 3 becomes 1: t = 0 half the time): std d / sqrt(2)
    const d = variants(sigma * Math.SQRT2);
    for (let b = 0, at = 0; b < nBlocks; b++, at += 66) {
      for (let i = at; i < at + 64; i++) {
        let v = bytes[i];
        for (let k = 0; k < 8; k += 2) if (((v >> k) & 3) === 3) v ^= 2 << k;
        bytes[i] = v;
      }
      const h = d[bytes[at + 64] & 63];
      bytes[at + 64] = h & 0xff;
      bytes[at + 65] = h >>> 8;
    }
  } else if (type === 'MXFP4') {
    // block_mxfp4 {u8 e, u8 qs[16]}: E2M1 codes (levels 0..±12 doubled, rms
    // 5.85) times 2^(e - 128), e within one of the exponent giving std sigma
    const e0 = 128 + Math.round(Math.log2(sigma / 5.85));
    for (let b = 0, at = 0; b < nBlocks; b++, at += 17) bytes[at] = e0 + (bytes[at] % 3) - 1;
  } else {
    throw new Error(`type ${type}`);
  }
  return bytes.subarray(0, nBlocks * t.bytes);
}

/** Sets each plan entry's nbytes from its type and shape. */
export function sizeTensors(plan) {
  for (const t of plan) {
    const g = GGML[t.type];
    t.nbytes = (t.shape.reduce((a, b) => a * b, 1) / g.block) * g.bytes;
  }
  return plan;
}

/**
 * Writes a GGUF v3 file (to OUT.tmp, then renamed): `head` holds the metadata
 * pairs (nKv of them); every plan entry {name, type, shape, nbytes, make} a tensor.
 */
export function writeGguf(out, head, nKv, plan) {
  const top = new Bytes();
  top.push(Buffer.from('GGUF', 'latin1'));
  top.u32(3);
  top.u64(plan.length);
  top.u64(nKv);
  for (const part of head.parts) top.push(part);
  let offset = 0;
  for (const t of plan) {
    top.str(t.name);
    top.u32(t.shape.length);
    for (const n of t.shape) top.u64(n);
    top.u32(GGML[t.type].id);
    top.u64(offset);
    t.offset = offset;
    offset += Math.ceil(t.nbytes / ALIGNMENT) * ALIGNMENT;
  }
  const header = top.concat();
  const pad = (n) => Buffer.alloc((ALIGNMENT - (n % ALIGNMENT)) % ALIGNMENT);

  fs.mkdirSync(path.dirname(out), { recursive: true });
  // Written aside, then renamed: test processes running in parallel may write the same file.
  const tmp = `${out}.${process.pid}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  try {
    fs.writeSync(fd, header);
    fs.writeSync(fd, pad(header.length));
    for (const t of plan) {
      const data = t.make();
      if (data.length !== t.nbytes) throw new Error(`${t.name}: ${data.length} bytes, expected ${t.nbytes}`);
      fs.writeSync(fd, data);
      fs.writeSync(fd, pad(t.nbytes));
    }
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, out);
  const params = plan.reduce((a, t) => a + t.shape.reduce((x, y) => x * y, 1), 0);
  return { file: out, params, bytes: fs.statSync(out).size };
}

/**
 * A little-endian GGUF v3 file's metadata pairs (each key and its raw bytes:
 * key, type, value) and tensor infos ({name, shape, type id, offset}), and
 * where its data section starts.
 */
export function readGguf(buf, file = 'the file') {
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  if (buf.toString('latin1', 0, 4) !== 'GGUF' || dv.getUint32(4, true) !== 3) throw new Error(`${file}: not GGUF v3`);
  const nTensors = Number(dv.getBigUint64(8, true));
  const nKv = Number(dv.getBigUint64(16, true));
  let at = 24;
  const str = () => {
    const n = Number(dv.getBigUint64(at, true));
    const s = buf.toString('utf8', at + 8, at + 8 + n);
    at += 8 + n;
    return s;
  };
  const skipValue = (type) => {
    if (type === GT.STRING) { str(); return; }
    if (type === GT.ARRAY) {
      const elem = dv.getUint32(at, true);
      const count = Number(dv.getBigUint64(at + 4, true));
      at += 12;
      if (elem === GT.STRING || elem === GT.ARRAY) for (let i = 0; i < count; i++) skipValue(elem);
      else at += count * GT_SIZE[elem];
      return;
    }
    at += GT_SIZE[type];
  };
  const pairs = [];
  let alignment = 32;
  for (let i = 0; i < nKv; i++) {
    const start = at;
    const key = str();
    const type = dv.getUint32(at, true);
    at += 4;
    if (key === 'general.alignment') alignment = dv.getUint32(at, true);
    skipValue(type);
    pairs.push({ key, bytes: buf.subarray(start, at) });
  }
  const tensors = [];
  for (let i = 0; i < nTensors; i++) {
    const name = str();
    const nDims = dv.getUint32(at, true);
    at += 4;
    const shape = [];
    for (let k = 0; k < nDims; k++, at += 8) shape.push(Number(dv.getBigUint64(at, true)));
    tensors.push({ name, shape, type: dv.getUint32(at, true), offset: Number(dv.getBigUint64(at + 4, true)) });
    at += 12;
  }
  return { pairs, tensors, dataStart: Math.ceil(at / alignment) * alignment };
}

/** The raw bytes (key, type, value) of every pair of a GGUF v3 file whose key starts with `prefix`. */
export function readTokenizerPairs(file, prefix = 'tokenizer.ggml.') {
  return readGguf(fs.readFileSync(file), file).pairs.filter((p) => p.key.startsWith(prefix)).map((p) => p.bytes);
}
