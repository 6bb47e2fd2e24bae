// The worker side of loadModel(): owns one model session and answers
// requests {id, op, args} with {id, type: 'progress' | 'piece' | 'result' |
// 'error'}. Runs as a browser module Worker or a Node worker_thread.
import { WasmLMError, throwIfAborted } from '../errors.js';
import { checkGenerateOptions, checkMessages } from '../options.js';
import { openModel } from '../model/open-model.js';
import { generate } from '../model/generate.js';
import { renderChat, splitChatOptions } from './chat-template.js';

const isNode = typeof process === 'object' && process.versions?.node != null && typeof self === 'undefined';
// Set at the end of this file. No top-level await here: bundlers build
// workers as classic scripts by default (Vite's worker.format 'iife'), where
// it is a syntax error.
let port = null;
const post = (message) => port.postMessage(message);

let session = null;
let info = null;
const running = new Map(); // request id -> AbortController, queued or running
let tail = Promise.resolve(); // the end of the request queue

const ops = {
  async load({ source, options }, { id, signal }) {
    if (session) throw new WasmLMError('INTERNAL', 'a model is already loaded in this worker');
    session = await openModel(source, {
      ...options,
      signal,
      onProgress: (progress) => post({ id, type: 'progress', progress }),
    });
    info = describeSession(session, options);
    return info;
  },
  tokenize({ text, addBos, parseSpecial }) {
    return Array.from(requireSession().tokenizer.encode(text, { addBos, parseSpecial }));
  },
  detokenize({ ids, renderSpecial }) {
    return requireSession().tokenizer.decode(ids, { renderSpecial });
  },
  generate({ prompt, options }, request) {
    return stream(generate(requireSession(), prompt, { ...options, signal: request.signal }), request);
  },
  async chat({ messages, options }, request) {
    const s = requireSession();
    const template = info.chatTemplate;
    if (!template) throw new WasmLMError('UNSUPPORTED', 'the model has no chat template (tokenizer.chat_template)');
    checkMessages(messages);
    const tok = s.tokenizer;
    const text = (id) => (Number.isInteger(id) && id >= 0 && id < tok.nVocab ? tok.decode([id], { renderSpecial: true }) : '');
    const bosToken = text(tok.bos);
    const eosToken = text(tok.eos);
    const specialTokens = { unk_token: text(info.tokenizer?.unk), pad_token: text(info.tokenizer?.pad) };
    const { kwargs, generateOptions } = splitChatOptions(checkGenerateOptions(options, { nVocab: s.nVocab, kind: 'chat' }));
    const prompt = await renderChat(template, messages, { bosToken, eosToken, specialTokens, kwargs });
    throwIfAborted(request.signal);
    // The template writes BOS itself when the model wants one.
    const addBos = bosToken !== '' && !prompt.startsWith(bosToken) ? undefined : false;
    return stream(generate(s, prompt, { ...generateOptions, addBos, parseSpecial: true, signal: request.signal }), request);
  },
  reset() {
    requireSession().reset();
    return null;
  },
  saveState() {
    return requireSession().saveState();
  },
  loadState({ state }) {
    requireSession().loadState(state);
    return null;
  },
  dispose() {
    session?.dispose();
    session = null;
    return null;
  },
  // For the tests of the crash path: what a wasm trap looks like from here.
  _trap() {
    throw new WebAssembly.RuntimeError('unreachable executed (test trap)');
  },
};

async function stream(iterator, { id }) {
  for (;;) {
    const { value, done } = await iterator.next();
    if (done) return value;
    post({ id, type: 'piece', piece: value });
  }
}

function requireSession() {
  if (!session) throw new WasmLMError('INTERNAL', 'no model is loaded');
  return session;
}

function describeSession(s, options) {
  const summary = s.describe();
  const chatTemplate = summary.metadata['tokenizer.chat_template'];
  return {
    architecture: summary.architecture,
    tokenizer: summary.tokenizer,
    parameterCount: summary.parameterCount,
    bytesByType: summary.bytesByType,
    tensorCountByType: summary.tensorCountByType,
    fileSize: summary.fileSize,
    chatTemplate: typeof chatTemplate === 'string' ? chatTemplate : null,
    contextLength: s.contextLength,
    kvCache: options.kvCache ?? 'f16',
    threads: s.threads,
    build: s.threads > 1 ? 'pthreads' : 'single-threaded',
    simd: s.simd,
    memory: summary.memory,
    rowQuads: summary.rowQuads,
    quantization: summary.quantization,
    nVocab: s.nVocab,
  };
}

// Requests run one at a time, in the order they came: two generations (or
// a reset during one) never interleave on the one context. An abort gets
// through while a generation runs (the loop yields between tokens); a
// dispose aborts everything queued or running, then frees the model.
function handle(message) {
  const { id, op, args } = message;
  if (op === 'abort') {
    running.get(args.target)?.abort();
    return;
  }
  if (op === 'dispose') for (const controller of running.values()) controller.abort();
  const controller = new AbortController();
  running.set(id, controller);
  tail = tail.then(() => run(id, op, args, controller));
}

async function run(id, op, args, controller) {
  try {
    if (!ops[op]) throw new WasmLMError('INTERNAL', `unknown request ${op}`);
    throwIfAborted(controller.signal);
    const result = await ops[op](args ?? {}, { id, signal: controller.signal });
    post({ id, type: 'result', result });
  } catch (error) {
    const serialized = serializeError(error);
    post({ id, type: 'error', error: serialized });
    // A trap or an abort leaves the wasm instance unusable: end this worker
    // (the page side starts a new one and loads the model again).
    if (serialized.fatal) {
      session = null;
      if (isNode) process.exit(1);
      else self.close();
    }
  } finally {
    running.delete(id);
  }
}

function serializeError(error) {
  if (error instanceof WasmLMError) return { code: error.code, message: error.message, offset: error.offset };
  const message = String(error?.message ?? error);
  const fatal = error instanceof WebAssembly.RuntimeError || /Aborted\(|program has already aborted/.test(message);
  return { code: 'INTERNAL', message: fatal ? `the model's wasm instance crashed: ${message}` : message, offset: null, fatal };
}

if (isNode) {
  // Node queues a worker's messages until this listener is attached.
  import('node:worker_threads').then(({ parentPort }) => {
    port = parentPort;
    port.on('message', handle);
  });
} else {
  port = self;
  port.onmessage = (event) => handle(event.data);
}
