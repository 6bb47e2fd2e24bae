// The RWKV World vocabulary (rwkv_vocab_v20230424.txt) as llama.cpp's
// convert_hf_to_gguf.py (_set_vocab_rwkv_world) stores it: id 0 "<s>"
// (control), then each token as repr(bytes)[2:-1] (Python's escaped bytes
// literal without b'...'), padded with "[PAD<id>]" (unused) to 65536 tokens.
import fs from 'node:fs';

export const N_VOCAB = 65536;
const TOKEN_TYPE = { NORMAL: 1, CONTROL: 3, UNUSED: 5 };

/** The bytes of one Python str or bytes literal ('...', "...", b'...'). */
function parseLiteral(lit) {
  const isBytes = lit.startsWith('b');
  const body = lit.slice(isBytes ? 2 : 1, -1);
  const out = [];
  const char = (code) => {
    if (isBytes) out.push(code);
    else out.push(...Buffer.from(String.fromCodePoint(code), 'utf8'));
  };
  const simple = { n: 10, t: 9, r: 13, a: 7, b: 8, f: 12, v: 11, 0: 0 };
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c !== '\\') {
      const code = body.codePointAt(i);
      if (code > 0xffff) i++;
      if (isBytes) out.push(code);
      else out.push(...Buffer.from(String.fromCodePoint(code), 'utf8'));
      continue;
    }
    const e = body[++i];
    const hex = (n) => { const v = parseInt(body.slice(i + 1, i + 1 + n), 16); i += n; return v; };
    if (e === 'x') char(hex(2));
    else if (e === 'u' && !isBytes) char(hex(4));
    else if (e === 'U' && !isBytes) char(hex(8));
    else if (e in simple) char(simple[e]);
    else if (e === '\\' || e === "'" || e === '"') char(e.charCodeAt(0));
    else out.push(0x5c, ...Buffer.from(e, 'utf8')); // Python keeps unknown escapes
  }
  return Buffer.from(out);
}

/** Python's repr(bytes)[2:-1]: ' quoted unless the bytes hold ' and no ". */
export function reprBytes(bytes) {
  const quote = bytes.includes(0x27) && !bytes.includes(0x22) ? 0x22 : 0x27;
  let s = '';
  for (const c of bytes) {
    if (c === 0x5c || c === quote) s += `\\${String.fromCharCode(c)}`;
    else if (c === 9) s += '\\t';
    else if (c === 10) s += '\\n';
    else if (c === 13) s += '\\r';
    else if (c < 0x20 || c >= 0x7f) s += `\\x${c.toString(16).padStart(2, '0')}`;
    else s += String.fromCharCode(c);
  }
  return s;
}

/** {tokens: string[], types: number[]} for tokenizer.ggml.tokens / token_type. */
export function rwkvWorldVocab(file) {
  const tokens = ['<s>'];
  const types = [TOKEN_TYPE.CONTROL];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const id = Number(line.slice(0, line.indexOf(' ')));
    const lit = line.slice(line.indexOf(' ') + 1, line.lastIndexOf(' '));
    const len = Number(line.slice(line.lastIndexOf(' ') + 1));
    const bytes = parseLiteral(lit);
    if (id !== tokens.length || bytes.length !== len) throw new Error(`${file}: bad line ${JSON.stringify(line)}`);
    tokens.push(reprBytes(bytes));
    types.push(TOKEN_TYPE.NORMAL);
  }
  for (let i = tokens.length; i < N_VOCAB; i++) {
    tokens.push(`[PAD${i}]`);
    types.push(TOKEN_TYPE.UNUSED);
  }
  return { tokens, types };
}
