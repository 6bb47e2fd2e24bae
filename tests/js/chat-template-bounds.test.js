// A chat template is code from the model file: rendering is bounded in
// steps, time and size, fails with TEMPLATE, and leaves the worker usable;
// abort wins while it renders. Normal templates render exactly as the
// library renders them unbounded. Property tests: any message content, and
// any template text, either renders or fails with TEMPLATE (never hangs or
// throws anything else).
import fc from 'fast-check';
import { Template } from '@huggingface/jinja';
import { inspect, loadModel, releaseWasmModules } from '../../web/src/index.js';
import { TEMPLATE_LIMITS, renderChat } from '../../web/src/worker/chat-template.js';
import { describeWithTestdata, testdataPath } from './helpers/testdata.js';

const LOOP = 'hostile/stories260K-chat-template-loop.gguf';
const OK = 'hostile/stories260K-chat-template-ok.gguf';
const HI = [{ role: 'user', content: 'hi' }];

async function templateOf(file) {
  return (await inspect(testdataPath(file))).metadata['tokenizer.chat_template'];
}

describe('renderChat budgets', () => {
  test.each([
    ['a loop of 10^10 iterations', '{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}x', /longer than 2000 ms|more than 2000000 steps/],
    ['a string doubled 40 times', "{% set s = namespace(x='ab') %}{% for i in range(40) %}{% set s.x = s.x + s.x %}{% endfor %}{{ s.x }}", /string of more than/],
    ['range() of 10^12 items', '{% for i in range(10**12) %}{% endfor %}', /range\(\) of 1000000000000 items/],
    ['a join of a long list', "{{ range(1000000)|join('xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx') }}", /string of more than/],
  ])('%s fails with TEMPLATE within the limits of time and memory', async (_, template, message) => {
    const rss = process.memoryUsage().rss;
    const t0 = performance.now();
    await expect(renderChat(template, HI)).rejects.toMatchObject({ name: 'WasmLMError', code: 'TEMPLATE', message: expect.stringMatching(message) });
    expect(performance.now() - t0).toBeLessThan(TEMPLATE_LIMITS.milliseconds + 3000);
    expect(process.memoryUsage().rss - rss).toBeLessThan(512 * 1024 * 1024);
  });

  test('a template that does not parse is TEMPLATE too', async () => {
    await expect(renderChat('{% for %}', HI)).rejects.toMatchObject({ code: 'TEMPLATE', message: expect.stringMatching(/does not parse/) });
  });

  test('the budget applies only to our renders: the library itself is untouched', () => {
    const template = new Template('{% for i in range(3) %}{{ i }}{% endfor %}');
    expect(template.render({})).toBe('012');
  });

  test('property: any message text renders as the unbounded library renders it', async () => {
    const template = '{% for m in messages %}<|{{ m.role }}|>{{ m.content | trim }}{% if not loop.last %}\n{% endif %}{% endfor %}';
    const reference = new Template(template);
    await fc.assert(fc.asyncProperty(
      fc.array(fc.record({ role: fc.constantFrom('user', 'assistant', 'system'), content: fc.string({ unit: 'binary' }) }), { maxLength: 8 }),
      async (messages) => {
        expect(await renderChat(template, messages, { addGenerationPrompt: false }))
          .toBe(reference.render({ messages, add_generation_prompt: false, tools: null, documents: null }));
      },
    ), { numRuns: 200 });
  });

  test('property: any template text renders or fails with TEMPLATE', async () => {
    const pieces = fc.constantFrom('{%', '%}', '{{', '}}', ' for ', ' in ', ' if ', ' endif ', ' endfor ', ' set ', 'x', '=',
      'range(', ')', '10', '*', '+', "'a'", 'messages', '[0]', '.content', '|', 'length', ' ', 'loop', 'namespace(', ',', '-');
    await fc.assert(fc.asyncProperty(fc.array(pieces, { maxLength: 40 }), async (parts) => {
      try {
        expect(typeof (await renderChat(parts.join(''), HI))).toBe('string');
      } catch (error) {
        expect(error).toMatchObject({ name: 'WasmLMError', code: 'TEMPLATE' });
      }
    }), { numRuns: 400 });
  });
});

describeWithTestdata('the hostile template files', () => {
  afterAll(() => releaseWasmModules());

  test('the control file\'s template renders unchanged by the budget', async () => {
    const template = await templateOf(OK);
    const messages = [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hello' }];
    const want = new Template(template).render({ messages, add_generation_prompt: true, tools: null, documents: null, bos_token: '<s>', eos_token: '</s>' });
    expect(await renderChat(template, messages, { bosToken: '<s>', eosToken: '</s>' })).toBe(want);
  });

  test('chat() on the looping template fails with TEMPLATE in bounded time, and the model goes on', async () => {
    const lm = await loadModel(testdataPath(LOOP), { threads: 1, contextLength: 128 });
    try {
      const t0 = performance.now();
      await expect(lm.chat(HI).next()).rejects.toMatchObject({ code: 'TEMPLATE', message: expect.stringMatching(/exceeds its budget/) });
      const ms = performance.now() - t0;
      expect(ms).toBeLessThan(10000);
      expect((await lm.complete('Once upon a time', { temperature: 0, maxTokens: 3 })).tokens).toHaveLength(3);
    } finally {
      await lm.dispose();
    }
  }, 30000);

  test('an abort while the looping template renders rejects with ABORTED at once', async () => {
    const lm = await loadModel(testdataPath(LOOP), { threads: 1, contextLength: 128 });
    try {
      const controller = new AbortController();
      const pending = lm.chat(HI, { signal: controller.signal }).next();
      await new Promise((resolve) => setTimeout(resolve, 100));
      const t0 = performance.now();
      controller.abort();
      await expect(pending).rejects.toMatchObject({ code: 'ABORTED' });
      expect(performance.now() - t0).toBeLessThan(500);
    } finally {
      await lm.dispose();
    }
  }, 30000);
});
