// Renders a model's tokenizer.chat_template (Jinja, as Hugging Face writes
// them) with @huggingface/jinja, the way transformers' apply_chat_template
// does: messages, add_generation_prompt, tools and documents (none), the
// special tokens the model has (bos_token, eos_token, ...), and any extra
// keyword arguments (enable_thinking, ...). raise_exception and strftime_now
// are the library's own globals, as in transformers.
import { WasmLMError } from '../errors.js';

const cache = new Map();
let jinja = null;

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
  jinja ??= await loadJinja();
  let template = cache.get(source);
  if (!template) {
    try {
      template = new jinja.Template(source);
    } catch (cause) {
      throw new WasmLMError('UNSUPPORTED', `the model's chat template does not parse: ${cause.message}`, { cause });
    }
    cache.set(source, template);
  }
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
    throw new WasmLMError('BAD_FORMAT', `rendering the chat template failed: ${cause.message}`, { cause });
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
