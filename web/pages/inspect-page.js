// The model viewer: picks a source (URL or file), asks the worker to read its
// header, shows it (summary, metadata, tokenizer, bytes by type, tensors);
// a click on a tensor asks the worker for a histogram of that tensor only.
import { formatLabel, shortestFloat32 } from '../src/display.js';
import { copyButton } from './copy-button.js';
import { droppedFiles, filesLabel, modelInput } from './dropped-files.js';

const DEMO_URL = '/testdata/llama/stories260K/stories260K.gguf';
const ARRAY_PREVIEW = 8; // items shown of a collapsed array
const ARRAY_EXPANDED = 1000; // items listed when it is opened
const LONG_STRING = 200; // characters; a longer string is shown shortened

const $ = (selector) => document.querySelector(selector);
const count = (n) => Number(n).toLocaleString('en-US');
const el = (tag, props = {}, ...children) => {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
};

// ---- the worker ------------------------------------------------------------

const worker = new Worker(new URL('./inspect-worker.js', import.meta.url), { type: 'module' });
const pending = new Map();
const latest = {}; // kind -> id of the newest request of that kind
let lastId = 0;

worker.onmessage = ({ data }) => {
  const request = pending.get(data.id);
  pending.delete(data.id);
  if (data.error) request?.reject(data.error);
  else request?.resolve(data.result);
};
worker.onerror = (event) => showError(`the worker failed: ${event.message ?? 'unknown error'}`);

/** Sends a request; a newer one of the same kind cancels it (its promise then resolves to null). */
function ask(kind, message) {
  if (latest[kind]) worker.postMessage({ cancel: latest[kind] });
  const id = (latest[kind] = ++lastId);
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    worker.postMessage({ id, ...message });
  }).then(
    (result) => (latest[kind] === id ? result : null),
    (error) => (latest[kind] === id ? Promise.reject(error) : null),
  );
}

const describeError = (e) => `${e.code ?? e.name}${e.offset == null ? '' : ` at byte ${e.offset}`}: ${e.message.replace(/^at byte \d+: /, '')}`;

// ---- inspecting a file -----------------------------------------------------

let current = null; // {source, label, result}

async function run(source, label) {
  setStatus(`Reading the header of ${label}…`);
  $('#histogram').hidden = true;
  if (latest.histogram) worker.postMessage({ cancel: latest.histogram }); // it was for the previous file
  latest.histogram = null;
  try {
    const result = await ask('inspect', { source });
    if (!result) return; // superseded by a newer request
    current = { source, label, result };
    render(result);
    setStatus(`${label}: ${formatLabel(result)}, ${result.tensors.length} tensors`);
  } catch (error) {
    current = null;
    $('#result').hidden = true;
    showError(`${label}: ${describeError(error)}`);
  }
}

function render(r) {
  fillList($('#file-info'), {
    format: `${formatLabel(r)}, ${r.endianness}-endian`,
    size: r.fileSize == null ? null : `${count(r.fileSize)} bytes (${bytes(r.fileSize)})`,
    header: r.dataOffset ? `${count(r.dataOffset)} bytes` : null,
    alignment: r.alignment,
    tensors: count(r.tensors.length),
    parameters: `${count(r.parameterCount)} (${(Number(r.parameterCount) / 1e6).toPrecision(3)} M)`,
    'metadata keys': count(Object.keys(r.metadata).length),
    split: r.split && `part ${r.split.no + 1} of ${r.split.count}`,
    'trailing bytes': r.trailingBytes ? count(r.trailingBytes) : null,
    'pickle protocol': r.pickleProtocol,
    shards: r.shards?.map((s) => `${s.name} (${s.tensorCount} tensors, pickle protocol ${s.pickleProtocol})`).join(', '),
    'tokenizer file': r.shards ? r.tokenizerFile ?? 'none' : null,
    warnings: r.warnings.join('; ') || null,
  });
  // A Meta checkpoint's hyperparameters are its params.json.
  const { decoder, ...architecture } = r.architecture ?? {};
  fillList($('#architecture'), r.params ?? architecture);
  renderDecoder(decoder);
  renderTokenizer(r);
  renderTypeChart(r);
  renderMetadata(r);
  renderTensors(r);
  $('#result').hidden = false;
}

// The decoder row and settings the engine takes from the file (or why it cannot run it).
function renderDecoder(d) {
  $('#decoder-section').hidden = !d;
  if (!d) return;
  if (d.error) {
    fillList($('#decoder'), { 'cannot run': `${d.error.code}: ${d.error.message}` });
    return;
  }
  const yes = (flag, text) => (flag ? text : null);
  fillList($('#decoder'), {
    architecture: `${d.architecture} (${d.families})`,
    norms: d.norms === 'pre' ? 'RMS norm before attention and FFN' : d.norms === 'post' ? 'RMS norm after attention and FFN' : 'RMS norm before and after attention and FFN',
    'q/k norm': d.qkNorm === 'none' ? null : d.qkNorm,
    attention: [yes(d.fusedQkv, 'fused qkv'), yes(d.qkvBias, 'q/k/v biases'), `scale ${shortestFloat32(d.queryScale)}`,
      yes(d.attnSoftcap, `scores soft-capped at ${d.attnSoftcap}`)].filter(Boolean).join(', '),
    'sliding window': d.slidingWindow ? `${d.slidingWindow} positions in ${d.windowedLayers} of ${d.layers} layers` : null,
    rope: [`${d.rope}, ${d.ropeDimensions} of ${d.headDim} dims`, `base ${d.ropeBase}`, yes(d.ropeScale !== 1, `scale 1/${shortestFloat32(1 / d.ropeScale)}`),
      yes(d.longRope, 'LongRoPE factors'), yes(d.ropeAttnFactor !== 1, `attention factor ${shortestFloat32(d.ropeAttnFactor)}`),
      yes(d.windowRopeBase != null, `windowed layers: base ${d.windowRopeBase}${d.windowRopeScale !== 1 ? `, scale ${d.windowRopeScale}` : ''}`),
      yes(d.noRopeLayers, `${d.noRopeLayers} layers without`)].filter(Boolean).join(', '),
    'feed-forward': `${d.activation === 'silu' ? 'SwiGLU' : 'GeGLU (tanh)'}${d.fusedGateUp ? ', fused gate/up' : ''}`,
    embeddings: [yes(d.embeddingScale !== 1, `scaled by ${shortestFloat32(d.embeddingScale)}`), d.tiedOutput ? 'tied to the output' : 'separate output'].filter(Boolean).join(', '),
    logits: [yes(d.finalSoftcap, `soft-capped at ${d.finalSoftcap}`), yes(d.logitScale !== 1, `divided by ${d.logitScale}`)].filter(Boolean).join(', ') || null,
    'kv cache (f16)': `${bytes(d.kvCacheF16.bytesPerPosition + d.kvCacheF16.windowedBytesPerPosition)} per position`
      + (d.slidingWindow ? `; windowed layers keep at most ${d.kvCacheF16.ringPositions}` : ''),
  });
}

function fillList(dl, fields) {
  const items = [];
  for (const [key, value] of Object.entries(fields)) {
    if (value == null) continue;
    const dd = el('dd');
    if (value instanceof Node) dd.append(value);
    else dd.textContent = typeof value === 'number' ? shortestFloat32(value) : String(value);
    items.push(el('dt', { textContent: key.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`) }), dd);
  }
  dl.replaceChildren(...items);
}

function bytes(n) {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  for (n = Number(n); n >= 1024 && i < units.length - 1; i++) n /= 1024;
  return `${i ? n.toPrecision(3) : n} ${units[i]}`;
}

// ---- tokenizer -------------------------------------------------------------

function renderTokenizer(r) {
  const t = r.tokenizer;
  const tokens = r.metadata['tokenizer.ggml.tokens'];
  const text = (id) => (Array.isArray(tokens) && tokens[id] != null ? JSON.stringify(tokens[id]) : '');
  const special = (id) => {
    if (id == null) return null;
    if (id === 0xffffffff || id === -1 || (Array.isArray(tokens) && id >= tokens.length)) return `none (${id})`;
    return `${id} ${text(id)}`.trim();
  };
  let samples = null;
  if (Array.isArray(tokens) && tokens.length) {
    const ids = [...new Set(Array.from({ length: 16 }, (_, i) => Math.floor((i * tokens.length) / 16)))];
    samples = el('ul', { className: 'tokens', ariaLabel: 'sample tokens' },
      ...ids.map((id) => el('li', {}, el('span', { className: 'id', textContent: id }), ' ', el('code', { textContent: text(id) }))));
  }
  const fields = {
    model: t.model, size: t.size, pre: t.pre,
    bos: special(t.bos), eos: special(t.eos), unk: special(t.unk), pad: special(t.pad),
    'add bos': t.addBos, 'add eos': t.addEos,
    'chat template': t.hasChatTemplate ? 'yes' : null,
    'sample tokens': samples,
  };
  if (Object.values(fields).every((v) => v == null)) fields.tokenizer = 'none in this file';
  fillList($('#tokenizer'), fields);
}

// ---- bytes by type ---------------------------------------------------------

function renderTypeChart(r) {
  const total = Object.values(r.bytesByType).reduce((a, b) => a + b, 0) || 1;
  const rows = Object.entries(r.bytesByType).sort((a, b) => b[1] - a[1]).map(([type, n]) => {
    const share = (100 * n) / total;
    const bar = el('div', { className: 'bar' }, el('span', { style: `width: ${share}%` }));
    bar.setAttribute('role', 'meter');
    bar.setAttribute('aria-valuenow', share.toFixed(1));
    bar.setAttribute('aria-label', `${type}: ${share.toFixed(1)}% of tensor bytes`);
    return el('tr', {},
      el('th', { scope: 'row', textContent: type }),
      el('td', {}, bar, ` ${share.toFixed(1)}%`),
      el('td', { className: 'num', textContent: count(r.tensorCountByType[type]) }),
      el('td', { className: 'num', textContent: `${count(n)} (${bytes(n)})` }));
  });
  $('#type-chart tbody').replaceChildren(...rows);
}

// ---- metadata --------------------------------------------------------------

let metadataRows = [];

const isList = (v) => Array.isArray(v) || ArrayBuffer.isView(v);
const itemText = (v) => (typeof v === 'string' ? JSON.stringify(v) : typeof v === 'number' ? shortestFloat32(v) : String(v));

// "string" of "array<string>"; the first item's kind when the file gives no type.
const elementType = (type, list) => type?.match(/^array<(.*)>$/)?.[1] ?? (ArrayBuffer.isView(list) ? list.constructor.name.replace('Array', '') : typeof list[0]);
// JSON: typed arrays as arrays, 64-bit integers (BigInt) as numbers when exact, else as strings.
const toJson = (value) => JSON.stringify(value, (_, v) => (ArrayBuffer.isView(v) ? Array.from(v)
  : typeof v === 'bigint' ? (Number.isSafeInteger(Number(v)) ? Number(v) : String(v)) : v));

function metadataCell(value, type) {
  const cell = el('td');
  if (isList(value) && value.length > ARRAY_PREVIEW) {
    const preview = Array.from(value.slice(0, ARRAY_PREVIEW), itemText).join(', ');
    const details = el('details', {}, el('summary', {},
      el('b', { textContent: `[${elementType(type, value)} × ${count(value.length)}]` }), ` ${preview}, …`));
    details.addEventListener('toggle', () => { // list the items only when asked
      if (!details.open || details.childElementCount > 1) return;
      const shown = Array.from(value.slice(0, ARRAY_EXPANDED), (v, i) => el('li', { value: i, textContent: itemText(v) }));
      details.append(el('ol', { start: 0, className: 'items' }, ...shown));
      if (value.length > ARRAY_EXPANDED) details.append(el('p', { textContent: `(first ${count(ARRAY_EXPANDED)} of ${count(value.length)})` }));
    });
    cell.append(details);
  } else if (isList(value)) {
    cell.textContent = `[${Array.from(value, itemText).join(', ')}]`;
  } else if (typeof value === 'string' && value.length > LONG_STRING) {
    cell.append(el('details', {}, el('summary', { textContent: `${count(value.length)} characters: ${value.slice(0, 80)}…` }), el('pre', { textContent: value })));
  } else {
    cell.textContent = typeof value === 'string' ? value : itemText(value);
  }
  return cell;
}

function renderMetadata(r) {
  metadataRows = Object.entries(r.metadata).map(([key, value]) => {
    const cell = metadataCell(value, r.metadataTypes?.[key]);
    // A list (even a collapsed one) is copied whole, as JSON.
    cell.prepend(copyButton(`the value of ${key}`, () => (isList(value) ? toJson(value) : typeof value === 'string' ? value : itemText(value))));
    const row = el('tr', {}, el('th', { scope: 'row', textContent: key }), el('td', { className: 'type', textContent: r.metadataTypes?.[key] ?? '' }), cell);
    let haystack = null; // built at the first search: all items of an array
    const matches = (q) => (haystack ??= `${key}\n${isList(value) ? Array.from(value, String).join('\n') : String(value)}`.toLowerCase()).includes(q);
    return { row, matches };
  });
  $('#metadata tbody').replaceChildren(...metadataRows.map((m) => m.row));
  $('#metadata-search').value = '';
  filterMetadata();
}

function filterMetadata() {
  const q = $('#metadata-search').value.trim().toLowerCase();
  let shown = 0;
  for (const { row, matches } of metadataRows) shown += (row.hidden = !!q && !matches(q)) ? 0 : 1;
  $('#metadata-count').textContent = q ? `${shown} of ${metadataRows.length} keys` : `${metadataRows.length} keys`;
}

// ---- tensors ---------------------------------------------------------------

let tensorRows = [];
let sort = { key: null, ascending: true };

function renderTensors(r) {
  tensorRows = r.tensors.map((t, index) => {
    const elements = t.shape.reduce((a, b) => a * b, 1);
    const shard = r.shards?.length > 1 ? ` (shard ${t.shard})` : '';
    const row = el('tr', { tabIndex: 0 },
      // The copy button first: a tap on the middle of a row then opens the histogram.
      el('td', {}, copyButton(`the name ${t.name}`, () => t.name), t.name + shard),
      el('td', { textContent: t.type }),
      // PyTorch tensors: torch's shape, and their strides when not plain row-major.
      el('td', { textContent: t.shape.join(' × ') + (t.stride && !t.contiguous ? ` (stride ${t.stride.join(', ')})` : ''),
        title: `${count(elements)} values${t.stride ? `; stride ${t.stride.join(', ')}` : ''}` }),
      el('td', { className: 'num', textContent: count(t.nbytes) }),
      el('td', { className: 'num', textContent: count(t.offset) }));
    row.addEventListener('click', () => showHistogram(t, row));
    row.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        showHistogram(t, row);
      }
    });
    return { row, tensor: t, index, elements, text: `${t.name} ${t.type}`.toLowerCase() };
  });
  sort = { key: null, ascending: true };
  $('#tensor-filter').value = '';
  sortTensors();
  filterTensors();
}

function sortTensors() {
  const { key, ascending } = sort;
  const value = (e) => (key == null ? e.index : key === 'elements' ? e.elements : e.tensor[key]);
  const ordered = [...tensorRows].sort((a, b) => {
    const [x, y] = [value(a), value(b)];
    const order = typeof x === 'string' ? x.localeCompare(y, 'en', { numeric: true }) : x - y;
    return (ascending ? order : -order) || a.index - b.index;
  });
  $('#tensors tbody').replaceChildren(...ordered.map((e) => e.row));
  for (const button of document.querySelectorAll('#tensors th button')) {
    const th = button.parentElement;
    if (button.dataset.key === key) th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
    else th.removeAttribute('aria-sort');
  }
}

function filterTensors() {
  const words = $('#tensor-filter').value.trim().toLowerCase().split(/\s+/).filter(Boolean);
  let shown = 0;
  for (const e of tensorRows) shown += (e.row.hidden = !words.every((w) => e.text.includes(w))) ? 0 : 1;
  $('#tensor-count').textContent = words.length ? `${shown} of ${tensorRows.length} tensors` : `${tensorRows.length} tensors`;
}

// ---- histogram of one tensor -----------------------------------------------

async function showHistogram(tensor, row) {
  if (!current) return;
  for (const e of tensorRows) e.row.classList.toggle('selected', e.row === row);
  const section = $('#histogram');
  section.hidden = false;
  $('#h-histogram').textContent = `Values of ${tensor.name}`;
  $('#histogram-status').classList.remove('error');
  $('#histogram-status').textContent = `Reading ${count(tensor.nbytes)} bytes of ${tensor.name} (${tensor.type})…`;
  $('#histogram-chart').replaceChildren();
  $('#histogram-stats').replaceChildren();
  for (const id of ['#histogram-lo', '#histogram-hi']) $(id).textContent = '';
  section.scrollIntoView({ block: 'nearest' });
  const started = performance.now();
  try {
    // A checkpoint's tensor is read from its own shard's file.
    const source = Array.isArray(current.source)
      ? current.source.find((f) => f.name === current.result.shards[tensor.shard].name) : current.source;
    const h = await ask('histogram', { source, tensor, littleEndian: current.result.endianness !== 'big' });
    if (!h) return;
    drawHistogram(h);
    const seconds = ((performance.now() - started) / 1000).toFixed(2);
    $('#histogram-status').textContent = h.sampled
      ? `A sample: ${tensor.type} blocks were dequantized in wasm, but only their first 32 values (${count(h.counted)} of ${count(h.n)}) are binned. ${seconds} s.`
      : `All ${count(h.n)} values, dequantized in the worker in ${seconds} s.`;
  } catch (error) {
    $('#histogram-status').textContent = describeError(error);
    $('#histogram-status').classList.add('error');
  }
}

function drawHistogram(h) {
  const mean = h.sum / h.n;
  const std = Math.sqrt(Math.max(0, h.sumsq / h.n - mean * mean));
  fillList($('#histogram-stats'), {
    values: count(h.n), min: h.min, max: h.max, mean: mean.toPrecision(6), 'standard deviation': std.toPrecision(6),
    'not finite': h.nonFinite ? count(h.nonFinite) : null,
  });
  const svg = $('#histogram-chart');
  const [width, height] = [640, 180];
  const peak = Math.max(...h.counts, 1);
  const binWidth = (h.hi - h.lo) / h.counts.length;
  const ns = 'http://www.w3.org/2000/svg';
  const bars = h.counts.map((n, i) => {
    const rect = document.createElementNS(ns, 'rect');
    const barHeight = n ? Math.max(1, (n / peak) * height) : 0;
    const attrs = { x: (i * width) / h.counts.length, y: height - barHeight, width: width / h.counts.length - 0.5, height: barHeight, 'data-count': n };
    for (const [k, v] of Object.entries(attrs)) rect.setAttribute(k, v);
    const title = document.createElementNS(ns, 'title');
    title.textContent = `${(h.lo + i * binWidth).toPrecision(4)} … ${(h.lo + (i + 1) * binWidth).toPrecision(4)}: ${count(n)}`;
    rect.append(title);
    return rect;
  });
  svg.setAttribute('aria-label', `Histogram of ${count(h.counted)} values of ${h.name} in ${h.counts.length} bins from ${shortestFloat32(h.lo)} to ${shortestFloat32(h.hi)}, tallest bin ${count(peak)}`);
  svg.replaceChildren(...bars);
  $('#histogram-lo').textContent = shortestFloat32(h.lo);
  $('#histogram-hi').textContent = shortestFloat32(h.hi);
}

// ---- status and events -----------------------------------------------------

function setStatus(text) {
  $('#status').textContent = text;
  $('#status').classList.remove('error');
}

function showError(text) {
  $('#status').textContent = text;
  $('#status').classList.add('error');
}

$('#url-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const url = $('#url').value.trim();
  if (url) run(new URL(url, location.href).href, url);
});

$('#choose-files').addEventListener('click', () => $('#file').click());
$('#file').addEventListener('change', () => {
  const files = Array.from($('#file').files);
  if (files.length) run(modelInput(files), filesLabel(files));
  $('#file').value = ''; // choosing the same file again inspects it again
});

$('#metadata-search').addEventListener('input', filterMetadata);
$('#tensor-filter').addEventListener('input', filterTensors);
$('#tensors thead').addEventListener('click', (event) => {
  const key = event.target.closest('button')?.dataset.key;
  if (!key) return;
  sort = { key, ascending: sort.key === key ? !sort.ascending : true };
  sortTensors();
});

// A file can be dropped anywhere on the page.
const dropZone = $('#drop-zone');
document.addEventListener('dragover', (event) => {
  event.preventDefault();
  dropZone.classList.add('over');
});
document.addEventListener('dragleave', (event) => {
  if (!event.relatedTarget) dropZone.classList.remove('over');
});
// A file, or a Meta checkpoint's folder (or its files).
document.addEventListener('drop', async (event) => {
  event.preventDefault();
  dropZone.classList.remove('over');
  const files = await droppedFiles(event.dataTransfer);
  if (files.length) run(modelInput(files), filesLabel(files));
});

// Offer the test model when the dev server exposes ../shared/testdata.
fetch(DEMO_URL, { method: 'HEAD' }).then((response) => {
  if (response.ok && !$('#url').value) $('#url').value = DEMO_URL;
}).catch(() => {});
