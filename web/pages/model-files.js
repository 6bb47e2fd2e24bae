// What a set of chosen or dropped files is for the demo: which file is the
// model, which its tokenizer, and what is missing before it can run.
// Returns {source, tokenizer, roles: [{name, role}], problem} where source and
// tokenizer are what loadModel(source, {tokenizer}) takes.

const VOCABULARY_FILES = 'rwkv_vocab_v20230424.txt (RWKV World models) or 20B_tokenizer.json (RWKV v4 Pile models)';

function roleOf(file) {
  const name = file.name.toLowerCase();
  if (name.endsWith('.gguf')) return 'gguf';
  if (name.endsWith('.bin')) return 'rwkv';
  if (name === 'params.json') return 'params';
  if (/\.(pth|pt)$/.test(name)) return 'weights';
  if (name.endsWith('.txt') || name.endsWith('.json') || name.endsWith('.model')) return 'tokenizer';
  return 'unknown';
}

function tokenizerKind(file) {
  const name = file.name.toLowerCase();
  if (name.endsWith('.txt')) return 'tokenizer (RWKV World vocabulary)';
  if (name.endsWith('.json')) return 'tokenizer (tokenizer.json)';
  return 'tokenizer (SentencePiece)';
}

/** rwkv.cpp's header: u32 magic 'ggmf', version, n_vocab, ...; n_vocab 256 is a byte-level vocabulary. */
async function rwkvVocabularySize(file) {
  const header = new DataView(await file.slice(0, 12).arrayBuffer());
  if (header.byteLength < 12 || header.getUint32(0, true) !== 0x67676d66) return null;
  return header.getUint32(8, true);
}

export async function describeModelFiles(files) {
  const byRole = { gguf: [], rwkv: [], params: [], weights: [], tokenizer: [], unknown: [] };
  for (const file of files) byRole[roleOf(file)].push(file);
  const roles = [];
  const say = (list, role) => list.forEach((f) => roles.push({ name: f.name, role: typeof role === 'function' ? role(f) : role }));
  const result = (source, tokenizer, problem = null) => ({ source, tokenizer, roles, problem });
  const { gguf, rwkv, params, weights, tokenizer, unknown } = byRole;
  say(unknown, 'not used (not a model or tokenizer file)');

  if (params.length || weights.length) { // a Meta checkpoint: params.json, consolidated.NN.pth, tokenizer.model
    say(params, 'checkpoint parameters');
    say(weights, (f) => `checkpoint weights${/\.(\d+)\.pth$/.test(f.name) ? ` (shard ${Number(f.name.match(/\.(\d+)\.pth$/)[1])})` : ''}`);
    say(tokenizer, tokenizerKind);
    const missing = [params.length ? null : 'params.json', weights.length ? null : 'its consolidated.NN.pth file(s)',
      tokenizer.length ? null : 'tokenizer.model'].filter(Boolean);
    const problem = missing.length
      ? `A Meta checkpoint needs params.json, consolidated.NN.pth and tokenizer.model: add ${missing.join(' and ')}.` : null;
    return result([...params, ...weights, ...tokenizer], null, problem);
  }
  if (gguf.length) {
    say(gguf, gguf.length > 1 ? 'model (split GGUF shard)' : 'model (GGUF)');
    say(tokenizer, 'not used (a GGUF file has its own vocabulary)');
    say(rwkv, 'not used (give the GGUF file or the RWKV file, not both)');
    return result(gguf.length === 1 ? gguf[0] : gguf, null);
  }
  if (rwkv.length) {
    say(rwkv, 'model (rwkv.cpp)');
    say(tokenizer, tokenizerKind);
    if (rwkv.length > 1) return result(null, null, 'Give one RWKV .bin file at a time.');
    if (tokenizer.length > 1) return result(null, null, `Give one tokenizer file: ${VOCABULARY_FILES}.`);
    if (tokenizer.length === 1) return result(rwkv[0], tokenizer[0]);
    const nVocab = await rwkvVocabularySize(rwkv[0]);
    if (nVocab === null) return result(null, null, `${rwkv[0].name} is not an rwkv.cpp model file.`);
    if (nVocab > 256) {
      return result(null, null, `${rwkv[0].name} has no vocabulary (an RWKV .bin only holds weights for ${nVocab} tokens): `
        + `choose or drop it together with its tokenizer file, ${VOCABULARY_FILES}.`);
    }
    roles.push({ name: '(no tokenizer file)', role: 'byte-level vocabulary: the model\'s 256 tokens are bytes' });
    return result(rwkv[0], null);
  }
  say(tokenizer, tokenizerKind);
  return result(null, null, tokenizer.length
    ? 'That is a tokenizer only: add the model file (.gguf, an RWKV .bin, or a Meta checkpoint\'s files).'
    : 'No model file: choose a .gguf file, an RWKV .bin (with its vocabulary), or a Meta checkpoint folder.');
}
