// The human-readable report of `wasmlm inspect`.
import { formatLabel, shortestFloat32 } from '../display.js';
import { formatCount, quote, table, words } from './text.js';

const ARRAY_PREVIEW = 3;

export function inspectReport(result, { name } = {}) {
  if (result.format.startsWith('pytorch') || result.format === 'meta-checkpoint') return pthReport(result, name);
  const sections = [overview(result, name), architecture(result), decoder(result), tokenizer(result), metadata(result),
    tensors(result), bytesByType(result), warnings(result)];
  return sections.filter(Boolean).join('\n\n') + '\n';
}

function overview(r, name) {
  const rows = [];
  if (name) rows.push(['file', name]);
  rows.push(['format', `${formatLabel(r)}, ${r.endianness}-endian${r.alignment > 1 ? `, alignment ${r.alignment}` : ''}`]);
  const dataAt = r.dataOffset > 0 ? `, tensor data from byte ${formatCount(r.dataOffset)}` : '';
  rows.push(['size', `${formatCount(r.fileSize)} bytes${dataAt}`]);
  rows.push(['parameters', `${formatCount(r.parameterCount)} in ${r.tensors.length} tensors`]);
  if (r.split) rows.push(['split', `part ${r.split.no + 1} of ${r.split.count}, ${r.split.tensorsCount} tensors in all`]);
  return table(rows, { indent: '' });
}

function architecture(r) {
  const { name, decoder: _, ...fields } = r.architecture;
  return `Architecture: ${name ?? 'unknown'}\n${table(fieldRows(fields))}`;
}

// How wasmlm's decoder runs the file: its architecture row, one field a line.
function decoder(r) {
  const d = r.architecture.decoder;
  if (!d) return null;
  const { architecture: arch, families, ...fields } = d;
  return `Decoder: ${arch}${families ? ` (${families})` : ''}\n${table(fieldRows(fields))}`;
}

function fieldRows(fields) {
  return Object.entries(fields)
    .filter(([, v]) => v != null)
    .map(([k, v]) => [words(k), typeof v === 'string' ? v : isRecord(v) ? record(v) : value(v)]);
}

const isRecord = (v) => typeof v === 'object' && v !== null && !Array.isArray(v) && !ArrayBuffer.isView(v);

/** A small object on one line: `bytes per position 4,096, ring positions 768`. */
function record(v) {
  return Object.entries(v)
    .filter(([, x]) => x != null)
    .map(([k, x]) => `${words(k)} ${typeof x === 'number' && Number.isInteger(x) ? formatCount(x) : scalar(x)}`)
    .join(', ');
}

function tokenizer(r) {
  const t = r.tokenizer;
  if (t.model == null && t.size == null) return 'Tokenizer: none in the file';
  const head = `Tokenizer: ${t.model ?? 'unknown'}${t.size != null ? `, ${formatCount(t.size)} tokens` : ''}`;
  const rows = Object.entries(t)
    .filter(([k, v]) => v != null && k !== 'model' && k !== 'size')
    .map(([k, v]) => [words(k), tokenName(r, k, v)]);
  return rows.length ? `${head}\n${table(rows)}` : head;
}

function metadata(r) {
  const keys = Object.keys(r.metadata);
  const rows = keys.map((k) => [k, r.metadataTypes[k], value(r.metadata[k], r.metadataTypes[k])]);
  return `Metadata (${keys.length} keys)${rows.length ? `\n${table(rows)}` : ''}`;
}

function tensors(r) {
  const rows = [['name', 'type', 'shape', 'bytes']];
  for (const t of r.tensors) rows.push([t.name, t.type, t.shape.join(' × '), formatCount(t.nbytes)]);
  return `Tensors (${r.tensors.length})\n${table(rows, { right: [3] })}`;
}

function bytesByType(r) {
  const total = Object.values(r.bytesByType).reduce((a, b) => a + b, 0);
  const rows = Object.entries(r.bytesByType)
    .sort((a, b) => b[1] - a[1])
    .map(([type, bytes]) => [type, `${r.tensorCountByType[type]} tensors`, `${formatCount(bytes)} bytes`,
      `${total ? ((100 * bytes) / total).toFixed(1) : '0.0'}%`]);
  return `Bytes by type\n${table(rows, { right: [1, 2, 3] })}`;
}

function warnings(r) {
  if (!r.warnings.length) return null;
  return `Warnings (${r.warnings.length})\n${r.warnings.map((w) => `  ${w}`).join('\n')}`;
}

const TOKEN_ID_FIELDS = new Set(['bos', 'eos', 'unk', 'pad']);

/** A token id with its text, e.g. `1 "<s>"`. */
function tokenName(r, field, id) {
  const text = TOKEN_ID_FIELDS.has(field) ? r.metadata['tokenizer.ggml.tokens']?.[id] : undefined;
  return text === undefined ? scalar(id) : `${id} ${quote(text)}`;
}

function scalar(v) {
  if (typeof v === 'string') return quote(v);
  if (typeof v === 'number') return shortestFloat32(v);
  return String(v);
}

/** A metadata value on one line; long arrays as `[string × 32000] "<unk>", "<s>", …`. */
function value(v, type = '') {
  const isList = Array.isArray(v) || ArrayBuffer.isView(v);
  if (!isList) return scalar(v);
  const elem = /^array<(.*)>$/.exec(type)?.[1] ?? '?';
  const items = Array.from(v.slice(0, ARRAY_PREVIEW), (x) => (Array.isArray(x) || ArrayBuffer.isView(x) ? `[${x.length}]` : scalar(x)));
  const more = v.length > ARRAY_PREVIEW ? ', …' : '';
  return `[${elem} × ${formatCount(v.length)}] ${items.join(', ')}${more}`.trimEnd();
}

// A PyTorch checkpoint: its tensors as torch has them (dtype, shape, stride,
// storage), no metadata or tokenizer.
function pthReport(r, name) {
  const head = [];
  if (name) head.push(['file', name]);
  head.push(['format', formatLabel(r) + (r.pickleProtocol != null ? `, pickle protocol ${r.pickleProtocol}` : '')]);
  head.push(['size', `${formatCount(r.fileSize)} bytes`]);
  head.push(['parameters', `${formatCount(r.parameterCount)} in ${r.tensors.length} tensors, ${r.storageCount} storages`]);
  const sections = [table(head, { indent: '' })];
  if (r.params) {
    const params = Object.entries(r.params).map(([k, v]) => [k, JSON.stringify(v)]);
    sections.push(`params.json\n${table(params)}`);
    const shards = r.shards.map((s, k) => [String(k), s.name, formatLabel(s) + `, pickle protocol ${s.pickleProtocol}`,
      `${formatCount(s.fileSize)} bytes`, `${s.tensorCount} tensors`]);
    sections.push(`Shards (${r.shards.length})${r.tokenizerFile ? `, tokenizer ${r.tokenizerFile}` : ''}\n${table(shards)}`);
  }
  const sharded = r.shards?.length > 1;
  const rows = [[...(sharded ? ['shard'] : []), 'name', 'dtype', 'shape', 'stride', 'storage', 'offset', 'bytes']];
  for (const t of r.tensors) {
    rows.push([...(sharded ? [String(t.shard)] : []), t.name, t.dtype, t.shape.join(' × ') || 'scalar', t.stride.join(', '),
      `${t.storage}+${t.storageOffset}`, formatCount(t.offset), formatCount(t.nbytes)]);
  }
  const right = sharded ? [6, 7] : [5, 6];
  sections.push(`Tensors (${r.tensors.length})\n${table(rows, { right })}`, bytesByType(r));
  return `${sections.join('\n\n')}\n`;
}
