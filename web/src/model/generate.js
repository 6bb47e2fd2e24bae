// The generation loop over a model session: prompt (minus the prefix already
// in the context) -> one batched eval ->
// sample -> text pieces as they become safe to show, until the end-of-
// generation token, a stop string, maxTokens or a full context.
import { WasmLMError, throwIfAborted } from '../errors.js';
import { checkGenerateOptions, checkPrompt } from '../options.js';

const FINISH_REASONS = { stop_token: 'eos', stop_string: 'stop', max_tokens: 'length' };

/**
 * Yields {text, tokens} pieces (tokens: the ids behind this piece) and
 * returns {text, tokens, promptTokens, finishReason, timings}.
 * @param {import('./open-model.js').ModelSession} session
 * @param {string|ArrayLike<number>} prompt text (tokenized with the model's vocabulary) or token ids
 */
export async function* generate(session, prompt, options = {}) {
  const checked = checkGenerateOptions(options, { nVocab: session.nVocab });
  const {
    maxTokens, stop, ignoreEos = false, signal, addBos, parseSpecial = false, ...sampling
  } = checked;
  const checkedPrompt = checkPrompt(prompt, session.nVocab);
  throwIfAborted(signal);
  const run = session._acquire(); // BUSY while another generation holds the session
  try {
    return yield* generateWith(run, checkedPrompt, { maxTokens, stop, ignoreEos, signal, addBos, parseSpecial, sampling });
  } finally {
    run.release();
  }
}

async function* generateWith(run, prompt, { maxTokens, stop, ignoreEos, signal, addBos, parseSpecial, sampling }) {
  const promptIds = typeof prompt === 'string' ? run.encode(prompt, { addBos, parseSpecial }) : prompt;
  if (promptIds.length === 0) throw new WasmLMError('BAD_OPTION', 'the prompt is empty (it tokenizes to no tokens)');
  const limit = maxTokens === Infinity ? -1 : maxTokens;

  // The context keeps what the prompt shares with it (a chat's earlier turns).
  run.resetSampler();
  const toEval = run.rewindTo(promptIds);
  // A model file without a vocabulary can still run on ids: no text then,
  // and only maxTokens ends the generation.
  let textless = false;
  try {
    // The prompt's last ids: the first piece keeps its space and a character
    // the prompt began completes, as llama.cpp shows generated text.
    run.beginText({ stop, maxTokens: limit, ignoreEos, after: Array.from(promptIds.slice(-8)) });
  } catch (error) {
    if (typeof prompt === 'string') throw error;
    textless = true;
  }
  const t0 = performance.now();
  if (toEval.length) run.eval(toEval, { logits: false });
  const t1 = performance.now();

  const tokens = [];
  let text = '';
  let pending = [];
  let finishReason = maxTokens === 0 ? 'length' : null;
  try {
    while (finishReason === null) {
      const id = run.sample(sampling);
      tokens.push(id);
      pending.push(id);
      const step = textless
        ? { text: '', reason: limit > 0 && tokens.length >= limit ? 'max_tokens' : null }
        : run.pushText(id);
      if (step.text) {
        text += step.text;
        yield { text: step.text, tokens: pending };
        pending = [];
      }
      if (step.reason) {
        finishReason = FINISH_REASONS[step.reason] ?? step.reason;
        break;
      }
      if (run.nPast >= run.contextLength) {
        finishReason = 'length';
        break;
      }
      await nextTask(); // lets an abort (or other work) in between tokens
      throwIfAborted(signal);
      run.eval([id], { logits: false });
    }
  } finally {
    if (finishReason === null && !textless) text += run.flushText(); // aborted, or the consumer stopped early
  }
  // An abort that came with the last token still wins.
  throwIfAborted(signal);
  const t2 = performance.now();
  const decoded = tokens.length - 1; // the first token comes from the prompt's logits
  return {
    text, tokens, promptTokens: promptIds.length, cachedPromptTokens: promptIds.length - toEval.length, finishReason,
    timings: {
      promptMs: t1 - t0, decodeMs: t2 - t1,
      promptTokensPerSecond: toEval.length ? toEval.length / ((t1 - t0) / 1000) : null,
      decodeTokensPerSecond: decoded > 0 ? decoded / ((t2 - t1) / 1000) : null,
    },
  };
}

/** Runs generate() to the end: {text, tokens, promptTokens, finishReason, timings}. */
export async function complete(session, prompt, options = {}) {
  const it = generate(session, prompt, options);
  for (;;) {
    const { value, done } = await it.next();
    if (done) return value;
  }
}

// A macrotask boundary without setTimeout's clamping: a message to ourselves.
function nextTask() {
  if (typeof setImmediate === 'function') return new Promise((resolve) => setImmediate(resolve));
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}
