// What a reader of a model file wants first: counts and sizes by type, the
// tokenizer, the architecture's hyperparameters, split info. Pure functions
// of the parsed directory (metadata already decoded).

/** @param {object} file a decoded directory: describe() with string arrays unpacked */
export function summarizeModel(file) {
  const tensors = file.tensors.map(({ name, type, typeId, shape, offset, nbytes }) => ({
    name, type, typeId, shape, offset, nbytes,
  }));
  return {
    format: file.format,
    version: file.version,
    endianness: file.endianness,
    alignment: file.alignment,
    dataOffset: file.dataOffset,
    fileSize: file.fileSize,
    trailingBytes: file.trailingBytes,
    metadata: file.metadata,
    metadataTypes: file.metadataTypes,
    tensors,
    parameterCount: parameterCount(tensors),
    bytesByType: sumByType(tensors, (t) => t.nbytes),
    tensorCountByType: sumByType(tensors, () => 1),
    tokenizer: tokenizerSummary(file.metadata),
    architecture: architectureSummary(file.metadata, tensors, file.decoder),
    split: splitSummary(file.metadata),
    warnings: file.warnings,
  };
}

/** Number of elements over all tensors; a BigInt only past 2^53. */
export function parameterCount(tensors) {
  let total = 0n;
  for (const t of tensors) total += t.shape.reduce((n, d) => n * BigInt(d), 1n);
  return total <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(total) : total;
}

function sumByType(tensors, amount) {
  const sums = {};
  for (const t of tensors) sums[t.type] = (sums[t.type] ?? 0) + amount(t);
  return sums;
}

export function tokenizerSummary(metadata) {
  const get = (key) => metadata[`tokenizer.ggml.${key}`] ?? null;
  const tokens = get('tokens');
  return {
    model: get('model'),
    size: Array.isArray(tokens) ? tokens.length : null,
    bos: get('bos_token_id'),
    eos: get('eos_token_id'),
    unk: get('unknown_token_id'),
    pad: get('padding_token_id'),
    pre: get('pre'),
    addBos: get('add_bos_token'),
    addEos: get('add_eos_token'),
    hasChatTemplate: 'tokenizer.chat_template' in metadata,
  };
}

/**
 * Hyperparameters from the `${architecture}.*` keys (GGUF naming), and
 * `decoder`: how wasmlm's decoder runs the file (its architecture row and
 * resolved settings, from the native reader; null for other architectures).
 */
export function architectureSummary(metadata, tensors, decoder = null) {
  const name = metadata['general.architecture'] ?? null;
  const get = (key) => (name == null ? null : metadata[`${name}.${key}`] ?? null);
  const tokens = metadata['tokenizer.ggml.tokens'];
  return {
    name,
    contextLength: get('context_length'),
    embeddingLength: get('embedding_length'),
    blockCount: get('block_count'),
    feedForwardLength: get('feed_forward_length'),
    headCount: get('attention.head_count'),
    headCountKv: get('attention.head_count_kv'),
    keyLength: get('attention.key_length'),
    valueLength: get('attention.value_length'),
    layerNormEpsilon: get('attention.layer_norm_epsilon'),
    layerNormRmsEpsilon: get('attention.layer_norm_rms_epsilon'),
    vocabSize: get('vocab_size') ?? (Array.isArray(tokens) ? tokens.length : null),
    ropeDimensionCount: get('rope.dimension_count'),
    ropeFreqBase: get('rope.freq_base'),
    ropeScalingType: get('rope.scaling.type'),
    ropeScalingFactor: get('rope.scaling.factor'),
    expertCount: get('expert_count'),
    expertUsedCount: get('expert_used_count'),
    rwkvVersion: name?.startsWith('rwkv') ? rwkvVersion(name, tensors) : null,
    decoder,
  };
}

/**
 * The RWKV architecture version: from the GGUF architecture name
 * ('rwkv6', 'rwkv7'), else guessed from tensor names as rwkv.cpp does.
 */
export function rwkvVersion(architecture, tensors) {
  const fromName = /^rwkv(\d+)/.exec(architecture);
  if (fromName) return fromName[1];
  const byName = new Map(tensors.map((t) => [t.name, t]));
  const has = (suffix) => byName.has(`blocks.0.att.${suffix}`);
  if (has('w0') || has('a0')) return '7';
  if (has('time_maa_x')) return '6';
  if (has('ln_x.weight')) {
    if (has('time_faaaa')) return '5.2';
    // 5.1 keeps one bonus per head ([1, 1, heads]); 5.0 a flat vector.
    return byName.get('blocks.0.att.time_first')?.shape.length === 3 ? '5.1' : '5';
  }
  return tensors.length ? '4' : null;
}

export function splitSummary(metadata) {
  if (!Object.keys(metadata).some((key) => key.startsWith('split.'))) return null;
  return {
    no: metadata['split.no'] ?? null,
    count: metadata['split.count'] ?? null,
    tensorsCount: metadata['split.tensors.count'] ?? null,
  };
}
