// Chatting with Qwen3, Gemma 2, Gemma 3 and Phi-3 files through the worker
// API: tiny random-weight models carrying each family's real vocabulary and
// chat template (tests/models/decoder-models.js CHAT_MODELS). chat() renders
// the family's template (the prompt is that string's tokens, special tokens
// parsed) and ends on the family's end-of-turn token, shown nowhere.
import { loadModel } from '../../web/src/index.js';
import { renderChat } from '../../web/src/worker/chat-template.js';
import { ensureChatModel } from '../models/decoder-models.js';
import { describeWithTestdata, TESTDATA } from './helpers/testdata.js';

const messages = [
  { role: 'system', content: 'You answer in one word.' },
  { role: 'user', content: 'Hello there!' },
  { role: 'assistant', content: 'Hi.' },
  { role: 'user', content: 'Which colour is the sky?' },
];

async function drain(iterator) {
  const pieces = [];
  for (;;) {
    const { value, done } = await iterator.next();
    if (done) return { ...value, pieces };
    pieces.push(value.text);
  }
}

describeWithTestdata('chat with each family\'s template', () => {
  // Gemma 2's template refuses a system message (as in transformers): its chat starts with the user.
  test.each([
    ['qwen3-chat', '<|im_end|>', 'qwen3', '<|im_start|>assistant\n', messages],
    ['gemma2-chat', '<end_of_turn>', 'gemma2', '<start_of_turn>model\n', messages.slice(1)],
    ['gemma3-chat', '<end_of_turn>', 'gemma3', '<start_of_turn>model\n', messages],
    ['phi3-chat', '<|end|>', 'phi3', '<|assistant|>\n', messages],
  ])('%s: the template renders the prompt and %s ends the reply', async (name, endOfTurn, arch, replyStart, chat) => {
    const lm = await loadModel(ensureChatModel(name, TESTDATA), { contextLength: 256, threads: 1 });
    try {
      expect(lm.info.architecture.decoder.architecture).toBe(arch);
      expect(lm.info.chatTemplate).toEqual(expect.any(String));
      // What the worker gives the template: the BOS and EOS texts.
      const text = (id) => (id == null || id < 0 ? '' : lm.detokenize([id], { renderSpecial: true }));
      const bos = await text(lm.info.tokenizer.bos);
      const rendered = await renderChat(lm.info.chatTemplate, chat, { bosToken: bos, eosToken: await text(lm.info.tokenizer.eos) });
      expect(rendered.endsWith(replyStart)).toBe(true);
      const [eot] = await lm.tokenize(endOfTurn, { parseSpecial: true, addBos: false });
      // Random weights: the end-of-turn token is made the likeliest after two free tokens.
      const free = await drain(lm.chat(chat, { temperature: 0, maxTokens: 2 }));
      expect(free.finishReason).toBe('length');
      expect(free.tokens).toHaveLength(2);
      const ended = await drain(lm.chat(chat, { temperature: 0, maxTokens: 8, logitBias: [[eot, 100]] }));
      expect(ended.finishReason).toBe('eos');
      expect(ended.tokens).toEqual([eot]);
      expect(ended.text).toBe('');
      // The prompt was the rendered string's tokens, with BOS added where the
      // vocabulary adds one and the template did not write it.
      const ids = await lm.tokenize(rendered, { parseSpecial: true, addBos: false });
      const addsBos = (await lm.tokenize('x')).length > (await lm.tokenize('x', { addBos: false })).length;
      expect(ended.promptTokens).toBe(ids.length + (addsBos && !rendered.startsWith(bos) ? 1 : 0));
      expect(ended.cachedPromptTokens).toBe(ended.promptTokens - 1); // the same prompt as the first chat
    } finally {
      await lm.dispose();
    }
  }, 60000);
});
