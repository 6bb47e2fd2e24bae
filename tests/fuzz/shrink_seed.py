#!/usr/bin/env python3
"""Small seeds for the fuzz targets from big real tokenizer files: the same
structure and settings with only the first N tokens (scripts/fuzz.sh).

  shrink_seed.py gguf-vocab N IN OUT      a vocabulary-only GGUF file
  shrink_seed.py tokenizer-json N IN OUT  a Hugging Face tokenizer.json
  shrink_seed.py sentencepiece N IN OUT   a SentencePiece tokenizer.model

Merges are kept where both parts and their join are kept tokens; added
tokens beyond N are renumbered after it; special-token ids beyond N dropped.
"""
import json
import struct
import sys


def gguf_vocab(n, data):
    pos = 0

    def take(fmt):
        nonlocal pos
        values = struct.unpack_from("<" + fmt, data, pos)
        pos += struct.calcsize("<" + fmt)
        return values[0] if len(values) == 1 else values

    magic, version = data[:4], struct.unpack_from("<I", data, 4)[0]
    pos = 8
    count = "I" if version == 1 else "Q"
    n_tensors, n_kv = take(count + count)
    if magic != b"GGUF" or n_tensors != 0:
        raise SystemExit("expected a vocabulary-only GGUF file")
    scalar = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}

    def string():
        length = take(count)
        nonlocal pos
        pos += length
        return data[pos - length:pos]

    def value(t):
        if t == 8:
            return string()
        if t == 9:
            elem, length = take("I" + count)
            return (elem, [value(elem) for _ in range(length)])
        return take(scalar[t])

    kv = []
    for _ in range(n_kv):
        key = string().decode()
        t = take("I")
        kv.append((key, t, value(t)))

    tokens = next(v[1] for k, t, v in kv if k == "tokenizer.ggml.tokens")
    kept = set(tokens[:n])
    out_kv = []
    for key, t, v in kv:
        if t == 9 and key.startswith("tokenizer.ggml.") and len(v[1]) == len(tokens):
            v = (v[0], v[1][:n])
        elif key == "tokenizer.ggml.merges":
            pairs = [m for m in v[1] if len(m.split(b" ")) == 2]
            v = (v[0], [m for m in pairs if all(p in kept for p in m.split(b" ")) and m.replace(b" ", b"") in kept])
        elif key.startswith("tokenizer.ggml.") and key.endswith("_token_id") and v >= n:
            continue
        out_kv.append((key, t, v))

    def put_string(s):
        return struct.pack("<" + count, len(s)) + s

    def put_value(t, v):
        if t == 8:
            return put_string(v)
        if t == 9:
            return struct.pack("<I" + count, v[0], len(v[1])) + b"".join(put_value(v[0], x) for x in v[1])
        return struct.pack("<" + scalar[t], v)

    out = data[:8] + struct.pack("<" + count + count, 0, len(out_kv))
    for key, t, v in out_kv:
        out += put_string(key.encode()) + struct.pack("<I", t) + put_value(t, v)
    return out + b"\0" * (-len(out) % 32)


def tokenizer_json(n, data):
    doc = json.loads(data)
    model = doc["model"]
    vocab = {tok: i for tok, i in model["vocab"].items() if i < n}
    model["vocab"] = vocab
    merges = []
    for m in model.get("merges", []):
        parts = m.split(" ") if isinstance(m, str) else m
        if len(parts) == 2 and all(p in vocab for p in parts) and "".join(parts) in vocab:
            merges.append(m)
    model["merges"] = merges
    next_id = n
    for added in doc.get("added_tokens", []):
        if added["id"] >= n:
            added["id"] = next_id
            next_id += 1
    return json.dumps(doc, ensure_ascii=False).encode()


def sentencepiece(n, data):
    # ModelProto: field 1 (pieces) repeated; every other field is kept as is.
    out, pos, pieces = b"", 0, 0
    while pos < len(data):
        start = pos
        key, pos = varint(data, pos)
        wire = key & 7
        if wire == 0:
            _, pos = varint(data, pos)
        elif wire == 1:
            pos += 8
        elif wire == 2:
            length, pos = varint(data, pos)
            pos += length
        elif wire == 5:
            pos += 4
        else:
            raise SystemExit("unexpected protobuf wire type %d" % wire)
        if key >> 3 == 1:
            pieces += 1
            if pieces > n:
                continue
        out += data[start:pos]
    return out


def varint(data, pos):
    value = shift = 0
    while True:
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, pos


def main():
    kind, n, src, dst = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    shrink = {"gguf-vocab": gguf_vocab, "tokenizer-json": tokenizer_json, "sentencepiece": sentencepiece}[kind]
    with open(src, "rb") as f:
        data = f.read()
    with open(dst, "wb") as f:
        f.write(shrink(n, data))


if __name__ == "__main__":
    main()
