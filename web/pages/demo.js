// The demo page: load a model (URL or file) into a worker with loadModel(),
// then stream completions or chat replies into the page.
import { loadModel } from '../src/index.js';
import { droppedFiles, filesLabel, modelInput } from './dropped-files.js';

const DEMO_URL = '/testdata/llama/stories260K/stories260K.gguf';
const $ = (selector) => document.querySelector(selector);

let lm = null;
let loading = null;     // AbortController of the load in progress
let generating = null;  // AbortController of the generation in progress
const chat = [];        // the conversation so far, in chat mode

function setStatus(text, isError = false) {
  $('#status').textContent = text;
  $('#status').classList.toggle('error', isError);
}

const megabytes = (n) => `${(n / 1e6).toFixed(n < 1e7 ? 1 : 0)} MB`;

async function load(source, label) {
  loading?.abort();
  generating?.abort();
  await lm?.dispose();
  lm = null;
  $('#session').hidden = true;
  loading = new AbortController();
  $('#cancel-load').hidden = false;
  $('#progress').hidden = false;
  $('#progress').removeAttribute('value');
  setStatus(`Loading ${label}…`);
  try {
    lm = await loadModel(source, {
      signal: loading.signal,
      contextLength: 2048,
      quantize: $('#quantize').value || undefined,
      onProgress: ({ loaded, total, bytesPerSecond, phase }) => {
        if (total) $('#progress').value = loaded / total;
        setStatus(phase === 'build' ? 'Setting up the model…'
          : `Loading ${label}: ${megabytes(loaded)}${total ? ` of ${megabytes(total)}` : ''} (${megabytes(bytesPerSecond)}/s)`);
      },
    });
  } catch (error) {
    setStatus(error.code === 'ABORTED' ? 'Loading cancelled.' : `Cannot load ${label}: ${error.message}`, error.code !== 'ABORTED');
    return;
  } finally {
    loading = null;
    $('#cancel-load').hidden = true;
    $('#progress').hidden = true;
  }
  const { info } = lm;
  const params = info.parameterCount >= 1e9 ? `${(info.parameterCount / 1e9).toFixed(1)}B` : `${(info.parameterCount / 1e6).toFixed(1)}M`;
  $('#model-info').textContent = `${label}: ${info.architecture?.name ?? 'model'}, ${params} parameters, `
    + `${Object.keys(info.bytesByType).join('/')}, context ${info.contextLength}, ${info.build} build`
    + `${info.threads > 1 ? ` (${info.threads} threads)` : ''}, ${megabytes(info.memory.wasmHeapBytes)} wasm heap.`;
  $('#chat-mode').disabled = !info.chatTemplate;
  if (!info.chatTemplate) document.querySelector('input[name=mode][value=complete]').checked = true;
  chat.length = 0;
  $('#output').textContent = '';
  $('#session').hidden = false;
  setStatus('Ready.');
}

function samplingOptions() {
  const number = (id) => {
    const value = $(id).value.trim();
    return value === '' ? undefined : Number(value);
  };
  const stop = $('#stop').value;
  return {
    maxTokens: number('#max-tokens'), temperature: number('#temperature'), topK: number('#top-k'), topP: number('#top-p'),
    minP: number('#min-p'), repeatPenalty: number('#repeat-penalty'), seed: number('#seed'), stop: stop ? [stop] : [],
  };
}

async function generate() {
  if (!lm || generating) return;
  const prompt = $('#prompt').value;
  const chatMode = document.querySelector('input[name=mode]:checked').value === 'chat';
  generating = new AbortController();
  $('#generate').disabled = true;
  $('#stop-generation').disabled = false;
  const options = { ...samplingOptions(), signal: generating.signal };
  const output = $('#output');
  let stream;
  if (chatMode) {
    chat.push({ role: 'user', content: prompt });
    output.textContent += `\n> ${prompt}\n`;
    stream = lm.chat(chat, options);
  } else {
    output.textContent = prompt;
    stream = lm.generate(prompt, options);
  }
  const started = performance.now();
  let tokens = 0;
  let reply = '';
  try {
    for (;;) {
      const { value, done } = await stream.next();
      if (done) {
        const t = value.timings;
        $('#speed').textContent = `${value.promptTokens} prompt tokens at ${t.promptTokensPerSecond.toFixed(0)}/s, `
          + `${value.tokens.length} generated at ${(t.decodeTokensPerSecond ?? 0).toFixed(1)}/s (${value.finishReason})`;
        break;
      }
      reply += value.text;
      output.textContent += value.text;
      tokens += value.tokens.length;
      $('#speed').textContent = `${tokens} tokens, ${(tokens / ((performance.now() - started) / 1000)).toFixed(1)}/s`;
    }
  } catch (error) {
    if (error.code !== 'ABORTED') setStatus(error.message, true);
    else $('#speed').textContent += ' (stopped)';
  } finally {
    if (chatMode) chat.push({ role: 'assistant', content: reply });
    generating = null;
    $('#generate').disabled = false;
    $('#stop-generation').disabled = true;
  }
}

$('#load-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const url = $('#url').value.trim();
  if (url) load(url, url.split('/').pop());
});
$('#cancel-load').addEventListener('click', () => loading?.abort());
$('#generate').addEventListener('click', generate);
$('#stop-generation').addEventListener('click', () => generating?.abort());
// Several files: a split GGUF's shards, or a Meta checkpoint's files.
$('#file').addEventListener('change', () => {
  const files = Array.from($('#file').files);
  if (files.length) load(modelInput(files), filesLabel(files));
});
const drop = $('#drop-zone');
drop.addEventListener('dragover', (event) => {
  event.preventDefault();
  drop.classList.add('over');
});
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', async (event) => {
  event.preventDefault();
  drop.classList.remove('over');
  const files = await droppedFiles(event.dataTransfer);
  if (files.length) load(modelInput(files), filesLabel(files));
});

// With the test models served next to the repository, offer stories260K.
fetch(DEMO_URL, { method: 'HEAD' }).then((response) => {
  if (response.ok && !$('#url').value) {
    $('#url').value = DEMO_URL;
    setStatus('The stories260K test model is available: press Load.');
  }
}).catch(() => {});
