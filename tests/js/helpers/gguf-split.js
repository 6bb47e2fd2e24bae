// Splits a little-endian GGUF v3 file into shards as llama.cpp's gguf-split
// does: the first shard keeps every metadata entry, each shard gets split.no
// (u16), split.count (u16) and split.tensors.count (i32), and the tensors
// are divided in file order. Used to test loading split models.

/** Byte ranges of a GGUF v3 header: the metadata entries and each tensor info. */
function parseHeader(buf) {
  let at = 8;
  const u32 = () => { const v = buf.readUInt32LE(at); at += 4; return v; };
  const u64 = () => { const v = Number(buf.readBigUInt64LE(at)); at += 8; return v; };
  const skipString = () => { const n = u64(); at += n; };
  const SIZES = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };
  const skipValue = (type) => {
    if (type === 8) return skipString();
    if (type === 9) {
      const elem = u32();
      const n = u64();
      for (let i = 0; i < n; ++i) skipValue(elem);
      return undefined;
    }
    at += SIZES[type];
    return undefined;
  };
  const nTensors = u64();
  const nKv = u64();
  const kvStart = at;
  let alignment = 32;
  for (let i = 0; i < nKv; ++i) {
    const keyLength = u64();
    const key = buf.toString('utf8', at, at + keyLength);
    at += keyLength;
    const type = u32();
    if (key === 'general.alignment') alignment = buf.readUInt32LE(at);
    skipValue(type);
  }
  const kv = buf.subarray(kvStart, at);
  const tensors = [];
  for (let i = 0; i < nTensors; ++i) {
    const start = at;
    skipString();
    const nDims = u32();
    at += 8 * nDims + 4;
    const offsetAt = at;
    const offset = u64();
    tensors.push({ info: buf.subarray(start, offsetAt), offset });
  }
  const dataStart = Math.ceil(at / alignment) * alignment;
  return { nKv, kv, tensors, alignment, dataStart };
}

/**
 * @param {Buffer} buf the whole file
 * @param {number[]} counts tensors per shard, in order (summing to the file's tensor count)
 * @returns {Buffer[]} the shards
 */
export function splitGguf(buf, counts) {
  const h = parseHeader(buf);
  const ends = h.tensors.map((t, i) => (i + 1 < h.tensors.length ? h.tensors[i + 1].offset : buf.length - h.dataStart));
  const shards = [];
  let first = 0;
  counts.forEach((count, no) => {
    const parts = [];
    const push = (b) => parts.push(b);
    const u16 = (v) => { const b = Buffer.alloc(2); b.writeUInt16LE(v); return b; };
    const u32 = (v) => { const b = Buffer.alloc(4); b.writeUInt32LE(v); return b; };
    const u64 = (v) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); return b; };
    const str = (s) => Buffer.concat([u64(Buffer.byteLength(s)), Buffer.from(s)]);
    const kv = (key, type, value) => Buffer.concat([str(key), u32(type), value]);
    const splitKv = [
      kv('split.no', 2, u16(no)), kv('split.count', 2, u16(counts.length)), kv('split.tensors.count', 5, u32(h.tensors.length)),
    ];
    push(Buffer.from('GGUF'));
    push(u32(3));
    push(u64(count));
    push(u64((no === 0 ? h.nKv : 0) + splitKv.length));
    if (no === 0) push(h.kv);
    splitKv.forEach(push);
    const data = [];
    let offset = 0;
    for (let i = first; i < first + count; ++i) {
      const bytes = buf.subarray(h.dataStart + h.tensors[i].offset, h.dataStart + ends[i]);
      push(h.tensors[i].info);
      push(u64(offset));
      data.push(bytes);
      offset += bytes.length;
    }
    const header = Buffer.concat(parts);
    const pad = Buffer.alloc(Math.ceil(header.length / h.alignment) * h.alignment - header.length);
    shards.push(Buffer.concat([header, pad, ...data]));
    first += count;
  });
  return shards;
}
