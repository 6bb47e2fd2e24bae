// Renders a model's tokenizer.chat_template (Jinja, as Hugging Face writes
// them) with @huggingface/jinja, the way transformers' apply_chat_template
// does: messages, add_generation_prompt, bos_token, eos_token.
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

/**
 * @param {string} source the template
 * @param {{role: string, content: string}[]} messages
 * @param {{bosToken?: string, eosToken?: string, addGenerationPrompt?: boolean}} [options]
 */
export async function renderChat(source, messages, { bosToken = '', eosToken = '', addGenerationPrompt = true } = {}) {
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
      messages, add_generation_prompt: addGenerationPrompt, bos_token: bosToken, eos_token: eosToken,
    });
  } catch (cause) {
    throw new WasmLMError('BAD_FORMAT', `rendering the chat template failed: ${cause.message}`, { cause });
  }
}
