// Checks the options and arguments of the public calls before any work
// starts: a bad value is a BAD_OPTION error naming the option, never a
// silent default, a wasm trap or INTERNAL. Each checker returns the options
// normalized (defaults filled in, shapes made canonical).
import { WasmLMError, badOption } from './errors.js';

const isInteger = (v) => typeof v === 'number' && Number.isInteger(v);
const isFiniteNumber = (v) => typeof v === 'number' && Number.isFinite(v);
const MAX_THREADS = 64;
const MAX_CONTEXT = 2 ** 31 - 1;
const MAX_SEED = 2n ** 64n - 1n;

function rejectUnknown(options, known, what) {
  for (const key of Object.keys(options)) {
    if (!known.has(key)) {
      throw new WasmLMError('BAD_OPTION', `unknown ${what} option "${key}" (known: ${[...known].join(', ')})`);
    }
  }
}

function plainOptions(options, what) {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' || Array.isArray(options)) throw badOption(`the ${what} options`, 'an object', options);
  return options;
}

/** Text as it will cross into wasm: lone UTF-16 surrogates become U+FFFD, as TextEncoder does. */
export function wellFormed(text) {
  if (typeof text.toWellFormed === 'function') return text.toWellFormed();
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

export function checkText(text, name = 'text') {
  if (typeof text !== 'string') throw badOption(name, 'a string', text);
  return wellFormed(text);
}

/** Token ids: an array-like of integers in [0, nVocab) (nVocab unknown: only >= 0). */
export function checkTokenIds(ids, nVocab, name = 'the token ids') {
  if (ids === null || typeof ids !== 'object' || typeof ids.length !== 'number') {
    throw badOption(name, 'an array of token ids', ids);
  }
  const out = new Array(ids.length);
  for (let i = 0; i < ids.length; ++i) {
    const id = ids[i];
    if (!isInteger(id) || id < 0 || (nVocab && id >= nVocab)) {
      throw badOption(`${name}[${i}]`, nVocab ? `an integer token id in [0, ${nVocab})` : 'a non-negative integer token id', id);
    }
    out[i] = id;
  }
  return out;
}

/** A prompt: text (made well-formed) or token ids (checked); never empty. */
export function checkPrompt(prompt, nVocab) {
  if (typeof prompt === 'string') return wellFormed(prompt);
  const ids = checkTokenIds(prompt, nVocab, 'the prompt');
  if (ids.length === 0) throw new WasmLMError('BAD_OPTION', 'the prompt is empty (no token ids)');
  return ids;
}

const SAMPLING = {
  temperature: (v) => isFiniteNumber(v) || 'a finite number (<= 0: greedy)',
  topK: (v) => isInteger(v) || 'an integer (<= 0: off)',
  topP: (v) => (isFiniteNumber(v) && v >= 0 && v <= 1) || 'a number in [0, 1] (1: off)',
  minP: (v) => (isFiniteNumber(v) && v >= 0 && v <= 1) || 'a number in [0, 1] (0: off)',
  repeatPenalty: (v) => (isFiniteNumber(v) && v > 0) || 'a finite number > 0 (1: off)',
  presencePenalty: (v) => isFiniteNumber(v) || 'a finite number (0: off)',
  frequencyPenalty: (v) => isFiniteNumber(v) || 'a finite number (0: off)',
  penaltyLastN: (v) => (isInteger(v) && v >= -1 && v <= MAX_CONTEXT) || 'an integer >= -1 (0: off, -1: every token)',
};
const GENERATE_KEYS = ['maxTokens', 'stop', 'ignoreEos', 'signal', 'addBos', 'parseSpecial', 'seed', 'logitBias', ...Object.keys(SAMPLING)];
const CHAT_KEYS = [...GENERATE_KEYS.filter((k) => k !== 'addBos' && k !== 'parseSpecial'), 'enableThinking', 'chatTemplateKwargs'];
const KNOWN = { generate: new Set(GENERATE_KEYS), chat: new Set(CHAT_KEYS) };

/**
 * generate()/complete() options ({kind: 'chat'}: chat()'s), normalized:
 * maxTokens (default 256; Infinity: until the context is full), stop as an
 * array of well-formed strings, logitBias as [id, bias] pairs. Checking the
 * result again gives the same result.
 * @param {object} options
 * @param {{nVocab?: number, kind?: 'generate'|'chat'}} context
 */
export function checkGenerateOptions(options, { nVocab, kind = 'generate' } = {}) {
  const o = plainOptions(options, kind);
  rejectUnknown(o, KNOWN[kind], kind);
  const out = { ...o };
  const given = (key) => o[key] !== undefined;

  out.maxTokens = given('maxTokens') ? o.maxTokens : 256;
  if (!(out.maxTokens === Infinity || (isInteger(out.maxTokens) && out.maxTokens >= 0))) {
    throw badOption('maxTokens', 'a non-negative integer or Infinity', o.maxTokens);
  }
  for (const [key, check] of Object.entries(SAMPLING)) {
    if (!given(key)) continue;
    const ok = check(o[key]);
    if (ok !== true) throw badOption(key, ok, o[key]);
  }
  for (const key of ['ignoreEos', 'addBos', 'parseSpecial', 'enableThinking']) {
    if (given(key) && typeof o[key] !== 'boolean') throw badOption(key, 'a boolean', o[key]);
  }
  if (given('signal') && !isAbortSignal(o.signal)) throw badOption('signal', 'an AbortSignal', o.signal);
  if (given('stop')) out.stop = checkStop(o.stop);
  if (given('seed')) out.seed = checkSeed(o.seed);
  if (given('logitBias')) out.logitBias = checkLogitBias(o.logitBias, nVocab);
  if (given('chatTemplateKwargs') && (o.chatTemplateKwargs === null || typeof o.chatTemplateKwargs !== 'object'
      || Array.isArray(o.chatTemplateKwargs))) {
    throw badOption('chatTemplateKwargs', 'an object of template variables', o.chatTemplateKwargs);
  }
  return out;
}

function checkStop(stop) {
  const list = typeof stop === 'string' ? [stop] : stop;
  if (!Array.isArray(list)) throw badOption('stop', 'a string or an array of strings', stop);
  return list.map((s, i) => {
    if (typeof s !== 'string' || s === '') throw badOption(`stop[${i}]`, 'a non-empty string', s);
    return wellFormed(s);
  });
}

function checkSeed(seed) {
  if (isInteger(seed) && seed >= 0 && seed <= Number.MAX_SAFE_INTEGER) return seed;
  if (typeof seed === 'bigint' && seed >= 0n && seed <= MAX_SEED) return seed;
  throw badOption('seed', 'an integer in [0, 2^53) or a BigInt in [0, 2^64)', seed);
}

/** Token biases: [[id, bias], ...], a Map id -> bias, or an object {id: bias}; -Infinity bans a token. */
function checkLogitBias(bias, nVocab) {
  let pairs;
  if (Array.isArray(bias)) pairs = bias;
  else if (bias instanceof Map) pairs = [...bias];
  else if (bias !== null && typeof bias === 'object' && Object.getPrototypeOf(bias) === Object.prototype) {
    pairs = Object.entries(bias).map(([id, b]) => [/^\d+$/.test(id) ? Number(id) : id, b]);
  } else {
    throw badOption('logitBias', 'an array of [tokenId, bias] pairs, a Map or an object {tokenId: bias}', bias);
  }
  return pairs.map((pair, i) => {
    if (!Array.isArray(pair) || pair.length !== 2) throw badOption(`logitBias[${i}]`, 'a [tokenId, bias] pair', pair);
    const [id, b] = pair;
    if (!isInteger(id) || id < 0 || (nVocab && id >= nVocab)) {
      throw badOption(`logitBias token ${String(id)}`, nVocab ? `a token id in [0, ${nVocab})` : 'a token id', id);
    }
    if (typeof b !== 'number' || Number.isNaN(b) || b === Infinity) {
      throw badOption(`logitBias for token ${id}`, 'a finite number or -Infinity', b);
    }
    return [id, b];
  });
}

function isAbortSignal(signal) {
  return signal !== null && typeof signal === 'object' && typeof signal.aborted === 'boolean'
    && typeof signal.addEventListener === 'function';
}

const OPEN_KEYS = new Set(['threads', 'contextLength', 'kvCache', 'signal', 'fetch', 'onProgress', 'retries',
  'retryDelay', 'readTimeout', 'cache', 'memoryCheck', 'quantize', 'tokenizer']);
const LOAD_KEYS = new Set([...OPEN_KEYS].filter((k) => k !== 'fetch'));

/**
 * openModel() ({worker: true}: loadModel()) options, normalized with their
 * defaults. loadModel also takes threads: 'auto'.
 */
export function checkModelOptions(options, { worker = false } = {}) {
  const o = plainOptions(options, worker ? 'loadModel' : 'openModel');
  rejectUnknown(o, worker ? LOAD_KEYS : OPEN_KEYS, worker ? 'loadModel' : 'openModel');
  const given = (key) => o[key] !== undefined;
  const out = {
    ...o,
    threads: given('threads') ? o.threads : worker ? 'auto' : 1,
    contextLength: given('contextLength') ? o.contextLength : worker ? 2048 : 512,
    kvCache: given('kvCache') ? o.kvCache : 'f16',
  };
  if (!(worker && out.threads === 'auto') && !(isInteger(out.threads) && out.threads >= 1 && out.threads <= MAX_THREADS)) {
    throw badOption('threads', `an integer in [1, ${MAX_THREADS}]${worker ? " or 'auto'" : ''}`, o.threads);
  }
  if (!(isInteger(out.contextLength) && out.contextLength >= 1 && out.contextLength <= MAX_CONTEXT)) {
    throw badOption('contextLength', 'a positive integer (tokens)', o.contextLength);
  }
  if (!['f16', 'f32', 'q8_0'].includes(out.kvCache)) throw badOption('kvCache', "'f16', 'f32' or 'q8_0'", o.kvCache);
  if (given('retries') && !(isInteger(o.retries) && o.retries >= 0)) throw badOption('retries', 'a non-negative integer', o.retries);
  if (given('retryDelay') && !(isFiniteNumber(o.retryDelay) && o.retryDelay >= 0)) {
    throw badOption('retryDelay', 'a non-negative number of milliseconds', o.retryDelay);
  }
  if (given('readTimeout') && !(typeof o.readTimeout === 'number' && o.readTimeout > 0)) {
    throw badOption('readTimeout', 'a positive number of milliseconds (Infinity: none)', o.readTimeout);
  }
  for (const key of ['cache', 'memoryCheck']) {
    if (given(key) && typeof o[key] !== 'boolean') throw badOption(key, 'a boolean', o[key]);
  }
  for (const key of ['onProgress', 'fetch']) {
    if (given(key) && typeof o[key] !== 'function') throw badOption(key, 'a function', o[key]);
  }
  if (given('signal') && !isAbortSignal(o.signal)) throw badOption('signal', 'an AbortSignal', o.signal);
  if (given('quantize') && (typeof o.quantize !== 'string' || o.quantize === '')) {
    throw badOption('quantize', "a type name such as 'Q8_0'", o.quantize);
  }
  return out;
}

/** chat() messages: an array of {role: string, content} objects (content made well-formed where it is text). */
export function checkMessages(messages) {
  if (!Array.isArray(messages)) throw badOption('messages', 'an array of {role, content} objects', messages);
  return messages.map((m, i) => {
    if (m === null || typeof m !== 'object' || Array.isArray(m)) throw badOption(`messages[${i}]`, 'a {role, content} object', m);
    if (typeof m.role !== 'string') throw badOption(`messages[${i}].role`, 'a string', m.role);
    return deepWellFormed(m, `messages[${i}]`, 0);
  });
}

const MAX_MESSAGE_DEPTH = 32;

function deepWellFormed(value, name, depth) {
  if (typeof value === 'string') return wellFormed(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_MESSAGE_DEPTH) throw badOption(name, `nested at most ${MAX_MESSAGE_DEPTH} deep`, value);
  if (Array.isArray(value)) return value.map((v, i) => deepWellFormed(v, `${name}[${i}]`, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, deepWellFormed(v, `${name}.${k}`, depth + 1)]));
}
