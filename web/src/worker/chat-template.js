// Renders a model's tokenizer.chat_template (Jinja, as Hugging Face writes
// them) with @huggingface/jinja, the way transformers' apply_chat_template
// does: messages, add_generation_prompt, tools and documents (none), the
// special tokens the model has (bos_token, eos_token, ...), and any extra
// keyword arguments (enable_thinking, ...). raise_exception and strftime_now
// are the library's own globals, as in transformers.
import { WasmLMError } from '../errors.js';

const cache = new Map();
let jinja = null;

// A chat template is code from the model file: its rendering is bounded in
// steps, time and size. Real templates render a 200-message chat in 5-40 ms
// (Qwen, Gemma, Phi); a loop of 10^10 iterations stops at the time limit.
export const TEMPLATE_LIMITS = Object.freeze({
  steps: 2_000_000, // interpreter evaluations and block runs per render
  milliseconds: 2000, // per render, checked every 4096 steps
  outputChars: 16 * 1024 * 1024, // the longest string a render may build
  rangeLength: 1_000_000, // range()'s longest list
});
let budget = null; // the render in progress: {steps, deadline}

class TemplateLimitError extends Error {}

// @huggingface/jinja has no hook for a budget: its interpreter's evaluate()
// is wrapped once, and counts only while one of our renders runs (other
// users of the library in the same page pass straight through).
function installBudget(library) {
  const proto = library.Interpreter.prototype;
  if (proto.wasmlmBudget) return;
  // The global range() is swapped for a bounded one as each of our renders starts.
  const range = new library.Environment().set('range', boundedRange);
  const run = proto.run;
  proto.run = function runWithinBudget(program) {
    if (budget !== null) this.global.setVariable('range', range);
    return run.call(this, program);
  };
  // A step: each evaluated node, and each block run (a loop's empty body too).
  const step = () => {
    if (budget === null) return;
    if (--budget.steps < 0) throw new TemplateLimitError(`it ran more than ${TEMPLATE_LIMITS.steps} steps`);
    if ((budget.steps & 4095) === 0 && performance.now() > budget.deadline) {
      throw new TemplateLimitError(`it ran longer than ${TEMPLATE_LIMITS.milliseconds} ms`);
    }
  };
  const evaluateBlock = proto.evaluateBlock;
  proto.evaluateBlock = function evaluateBlockWithinBudget(statements, environment) {
    step();
    return evaluateBlock.call(this, statements, environment);
  };
  const evaluate = proto.evaluate;
  proto.evaluate = function evaluateWithinBudget(statement, environment) {
    step();
    const value = evaluate.call(this, statement, environment);
    if (budget !== null && typeof value?.value === 'string' && value.value.length > TEMPLATE_LIMITS.outputChars) {
      throw new TemplateLimitError(`it built a string of more than ${TEMPLATE_LIMITS.outputChars} characters`);
    }
    return value;
  };
  proto.wasmlmBudget = true;
}

// range() as the library has it, refusing lists longer than the limit before building them.
function boundedRange(start, stop, step = 1) {
  if (stop === undefined) [start, stop] = [0, start];
  if (![start, stop, step].every(Number.isFinite)) throw new Error('range() takes finite numbers');
  if (step === 0) throw new Error('range() step must not be zero');
  const length = Math.max(0, Math.ceil((stop - start) / step));
  if (length > TEMPLATE_LIMITS.rangeLength) {
    throw new TemplateLimitError(`range() of ${length} items is longer than ${TEMPLATE_LIMITS.rangeLength}`);
  }
  return Array.from({ length }, (_, i) => start + i * step);
}

// Node and bundlers resolve the package; a browser loading these files as
// plain modules cannot resolve a bare name, so the build copies the
// library's ES module next to the wasm. Bundlers are told to leave that
// fallback alone (in a bundle the bare name always resolves).
async function loadJinja() {
  try {
    return await import('@huggingface/jinja');
  } catch {
    const vendored = new URL(/* @vite-ignore */ '../../dist/vendor/jinja.mjs', import.meta.url).href;
    return import(/* @vite-ignore */ /* webpackIgnore: true */ vendored);
  }
}

// transformers passes only the special tokens a tokenizer has.
function presentTokens(tokens) {
  return Object.fromEntries(Object.entries(tokens).filter(([, text]) => typeof text === 'string' && text !== ''));
}

/**
 * @param {string} source the template
 * @param {{role: string, content: string}[]} messages
 * @param {{bosToken?: string, eosToken?: string, specialTokens?: Record<string, string>,
 *   addGenerationPrompt?: boolean, kwargs?: Record<string, unknown>}} [options]
 *   specialTokens: more of them by variable name (unk_token, pad_token, ...);
 *   kwargs: apply_chat_template's extra keyword arguments, e.g. {enable_thinking: false}.
 */
export async function renderChat(source, messages, {
  bosToken = '', eosToken = '', specialTokens = {}, addGenerationPrompt = true, kwargs = {},
} = {}) {
  if (!jinja) {
    jinja = await loadJinja();
    installBudget(jinja);
  }
  let template = cache.get(source);
  if (!template) {
    try {
      template = new jinja.Template(source);
    } catch (cause) {
      throw new WasmLMError('TEMPLATE', `the model's chat template does not parse: ${cause.message}`, { cause });
    }
    cache.set(source, template);
  }
  budget = { steps: TEMPLATE_LIMITS.steps, deadline: performance.now() + TEMPLATE_LIMITS.milliseconds };
  try {
    return template.render({
      messages,
      add_generation_prompt: addGenerationPrompt,
      tools: null,
      documents: null,
      ...presentTokens({ bos_token: bosToken, eos_token: eosToken, ...specialTokens }),
      ...kwargs,
    });
  } catch (cause) {
    const why = cause instanceof TemplateLimitError ? 'exceeds its budget' : 'failed';
    throw new WasmLMError('TEMPLATE', `the model's chat template ${why}: ${cause.message}`, { cause });
  } finally {
    budget = null;
  }
}

/**
 * The chat options that are not generate()'s, as renderChat kwargs:
 * chatTemplateKwargs as they are, enableThinking as enable_thinking.
 * @returns {{kwargs: Record<string, unknown>, generateOptions: object}}
 */
export function splitChatOptions({ chatTemplateKwargs = {}, enableThinking, ...generateOptions } = {}) {
  const kwargs = { ...(enableThinking === undefined ? {} : { enable_thinking: Boolean(enableThinking) }), ...chatTemplateKwargs };
  return { kwargs, generateOptions };
}
