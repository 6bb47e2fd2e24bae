// The demo page: load a model (URL or files) into a worker with loadModel(),
// then complete text (complete-panel.js) or chat with it (chat-panel.js).
import { loadModel } from '../src/index.js';
import { createChatPanel } from './chat-panel.js';
import { createCompletePanel } from './complete-panel.js';
import { droppedFiles, filesLabel } from './dropped-files.js';
import { describeModelFiles } from './model-files.js';

const DEMO_URL = '/testdata/llama/stories260K/stories260K.gguf';
const $ = (selector) => document.querySelector(selector);

let lm = null;
let loading = null;     // {controller} of the load that owns the page; a newer load replaces it

function setStatus(text, isError = false) {
  $('#status').textContent = text;
  $('#status').classList.toggle('error', isError);
}

const megabytes = (n) => `${(n / 1e6).toFixed(n < 1e7 ? 1 : 0)} MB`;
const showError = (error) => setStatus(error.message, true);
const chat = createChatPanel({ model: () => lm, onError: showError });
const completion = createCompletePanel({ model: () => lm, onError: showError });

// Each load tells the page how it ended (tests listen): {label, code: 'READY'|'ABORTED'|error code}.
const announce = (label, code) => window.dispatchEvent(new CustomEvent('demo-load-end', { detail: { label, code } }));

async function load(source, label, tokenizer) {
  // A second load cancels the first: its promise rejects ABORTED and loadModel() frees what it loaded.
  loading?.controller.abort();
  const current = { controller: new AbortController() };
  loading = current;
  const isCurrent = () => loading === current;
  completion.reset();
  chat.reset(null);
  const previous = lm;
  lm = null;
  $('#session').hidden = true;
  $('#cancel-load').hidden = false;
  $('#progress').hidden = false;
  $('#progress').removeAttribute('value');
  setStatus(`Loading ${label}…`);
  await previous?.dispose();
  let model;
  try {
    if (!isCurrent()) throw Object.assign(new Error('replaced by a newer load'), { code: 'ABORTED' });
    model = await loadModel(source, {
      signal: current.controller.signal,
      contextLength: 2048,
      quantize: $('#quantize').value || undefined,
      ...(tokenizer ? { tokenizer } : {}),
      onProgress: ({ loaded, total, bytesPerSecond, phase }) => {
        if (!isCurrent()) return;
        if (total) $('#progress').value = loaded / total;
        setStatus(phase === 'build' ? `Setting up ${label}…`
          : `Loading ${label}: ${megabytes(loaded)}${total ? ` of ${megabytes(total)}` : ''} (${megabytes(bytesPerSecond)}/s)`);
      },
    });
  } catch (error) {
    announce(label, error.code ?? 'ERROR');
    if (!isCurrent()) return; // a newer load owns the status and progress now
    loading = null;
    $('#cancel-load').hidden = true;
    $('#progress').hidden = true;
    setStatus(error.code === 'ABORTED' ? 'Loading cancelled.' : `Cannot load ${label}: ${error.message}`, error.code !== 'ABORTED');
    return;
  }
  if (!isCurrent()) { // finished just as a newer load began
    await model.dispose();
    announce(label, 'ABORTED');
    return;
  }
  loading = null;
  lm = model;
  $('#cancel-load').hidden = true;
  $('#progress').hidden = true;
  showModel(label);
  announce(label, 'READY');
}

function showModel(label) {
  const { info } = lm;
  const params = info.parameterCount >= 1e9 ? `${(info.parameterCount / 1e9).toFixed(1)}B` : `${(info.parameterCount / 1e6).toFixed(1)}M`;
  $('#model-info').textContent = `${label}: ${info.architecture?.name ?? 'model'}, ${params} parameters, `
    + `${Object.keys(info.bytesByType).join('/')}, context ${info.contextLength}, ${info.build} build`
    + `${info.threads > 1 ? ` (${info.threads} threads)` : ''}, ${megabytes(info.memory.wasmHeapBytes)} wasm heap.`;
  $('#chat-mode').disabled = !info.chatTemplate;
  $('#chat-unavailable').hidden = Boolean(info.chatTemplate);
  if (!info.chatTemplate) document.querySelector('input[name=mode][value=complete]').checked = true;
  showMode();
  chat.reset(info);
  completion.reset();
  $('#session').hidden = false;
  setStatus('Ready.');
}

function showMode() {
  const chatMode = document.querySelector('input[name=mode]:checked').value === 'chat';
  $('#complete-panel').hidden = chatMode;
  $('#chat-panel').hidden = !chatMode;
}

/** Shows what each file is; loads them when they make a model, else says what is missing. */
async function loadFiles(files) {
  if (!files.length) return;
  let description;
  try {
    description = await describeModelFiles(files);
  } catch (error) {
    setStatus(`Cannot read ${filesLabel(files)}: ${error.message}`, true);
    return;
  }
  const { source, tokenizer, roles, problem } = description;
  const list = $('#file-roles');
  list.replaceChildren(...roles.map(({ name, role }) => {
    const item = document.createElement('li');
    const file = document.createElement('code');
    file.textContent = name;
    item.append(file, ` — ${role}`);
    return item;
  }));
  list.hidden = false;
  if (problem) {
    setStatus(problem, true);
    return;
  }
  load(source, filesLabel(files), tokenizer);
}

$('#load-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const url = $('#url').value.trim();
  const tokenizer = $('#tokenizer-url').value.trim();
  $('#file-roles').hidden = true;
  if (url) load(url, url.split('/').pop(), tokenizer || undefined);
});
$('#cancel-load').addEventListener('click', () => loading?.controller.abort());
document.querySelectorAll('input[name=mode]').forEach((radio) => radio.addEventListener('change', showMode));

$('#choose-files').addEventListener('click', () => $('#file').click());
$('#file').addEventListener('change', () => {
  loadFiles(Array.from($('#file').files));
  $('#file').value = ''; // choosing the same files again loads them again
});
// Files can be dropped anywhere on the page (not only on the drop zone).
const drop = $('#drop-zone');
document.addEventListener('dragover', (event) => {
  event.preventDefault();
  drop.classList.add('over');
});
document.addEventListener('dragleave', (event) => {
  if (!event.relatedTarget) drop.classList.remove('over');
});
document.addEventListener('drop', async (event) => {
  event.preventDefault();
  drop.classList.remove('over');
  loadFiles(await droppedFiles(event.dataTransfer));
});

// For the console (and the page's tests): the loaded model, e.g. demo.lm.info.
window.demo = { get lm() { return lm; }, chatHistory: () => chat.history() };

// With the test models served next to the repository, offer stories260K.
fetch(DEMO_URL, { method: 'HEAD' }).then((response) => {
  if (response.ok && !$('#url').value) {
    $('#url').value = DEMO_URL;
    setStatus('The stories260K test model is available: press Load.');
  }
}).catch(() => {});
