// The inspect page: picks a source (URL or file), asks the worker to inspect
// it, shows the result.
import { formatLabel, shortestFloat32 } from '../src/display.js';

const DEMO_URL = '/testdata/llama/stories260K/stories260K.gguf';

const $ = (selector) => document.querySelector(selector);
const worker = new Worker(new URL('./inspect-worker.js', import.meta.url), { type: 'module' });
const pending = new Map();
let lastId = 0;

worker.onmessage = ({ data }) => {
  const request = pending.get(data.id);
  pending.delete(data.id);
  if (data.error) request?.reject(data.error);
  else request?.resolve(data.result);
};
worker.onerror = (event) => showError(`the worker failed: ${event.message ?? 'unknown error'}`);

function inspectInWorker(source) {
  if (lastId) worker.postMessage({ cancel: lastId });
  const id = ++lastId;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    worker.postMessage({ id, source });
  }).then((result) => ({ id, result }), (error) => Promise.reject(Object.assign(error, { id })));
}

async function run(source, label) {
  setStatus(`Inspecting ${label}…`);
  try {
    const { id, result } = await inspectInWorker(source);
    if (id !== lastId) return; // a newer request superseded this one
    render(result);
    setStatus(`${label}: ${result.tensors.length} tensors`);
  } catch (error) {
    if (error.id !== lastId) return;
    $('#result').hidden = true;
    const at = error.offset == null ? '' : ` at byte ${error.offset}`;
    showError(`${label}: ${error.code ?? error.name}${at}: ${error.message.replace(/^at byte \d+: /, '')}`);
  }
}

function render(r) {
  const count = (n) => Number(n).toLocaleString('en-US');
  fillList($('#file-info'), {
    format: `${formatLabel(r)}, ${r.endianness}-endian`,
    size: `${count(r.fileSize)} bytes`,
    parameters: count(r.parameterCount),
    'bytes by type': Object.entries(r.bytesByType).map(([t, n]) => `${t} ${count(n)}`).join(', '),
    warnings: r.warnings.join('; ') || null,
  });
  fillList($('#architecture'), r.architecture);
  fillList($('#tokenizer'), r.tokenizer);
  const rows = r.tensors.map((t) => {
    const tr = document.createElement('tr');
    for (const [text, cls] of [[t.name], [t.type], [t.shape.join(' × ')], [count(t.nbytes), 'num']]) {
      const td = tr.insertCell();
      td.textContent = text;
      if (cls) td.className = cls;
    }
    return tr;
  });
  $('#tensors tbody').replaceChildren(...rows);
  $('#result').hidden = false;
}

function fillList(dl, fields) {
  const items = [];
  for (const [key, value] of Object.entries(fields)) {
    if (value == null) continue;
    const dt = document.createElement('dt');
    dt.textContent = key.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);
    const dd = document.createElement('dd');
    dd.textContent = typeof value === 'number' ? shortestFloat32(value) : String(value);
    items.push(dt, dd);
  }
  dl.replaceChildren(...items);
}

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

$('#file').addEventListener('change', () => {
  const [file] = $('#file').files;
  if (file) run(file, file.name);
});

const dropZone = $('#drop-zone');
dropZone.addEventListener('dragover', (event) => {
  event.preventDefault();
  dropZone.classList.add('over');
});
dropZone.addEventListener('dragleave', () => dropZone.classList.remove('over'));
dropZone.addEventListener('drop', (event) => {
  event.preventDefault();
  dropZone.classList.remove('over');
  const [file] = event.dataTransfer.files;
  if (file) run(file, file.name);
});

// Offer the test model when the dev server exposes ../shared/testdata.
fetch(DEMO_URL, { method: 'HEAD' }).then((response) => {
  if (response.ok && !$('#url').value) $('#url').value = DEMO_URL;
}).catch(() => {});
