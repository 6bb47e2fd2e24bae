// session.generate()/complete(): streamed text pieces, end-of-generation
// tokens, stop strings, maxTokens and abort, on stories260K against
// llama.cpp's greedy tokens.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import { openModel, releaseWasmModules } from '../../web/src/index.js';
import { describeWithTestdata, REPO_ROOT, STORIES_GGUF, testdataPath } from './helpers/testdata.js';

const run = promisify(execFile);
const PROMPT = [1, 403, 407, 261, 378]; // <s> Once upon a time

describeWithTestdata('generating text from stories260K', () => {
  const reference = JSON.parse(fs.readFileSync(testdataPath('llama/stories260K/reference/reference-outputs.json'), 'utf8'));
  const greedy = reference.find((r) => r.file === 'stories260K.gguf').result.greedy_ids;
  let model;

  beforeAll(async () => {
    model = await openModel(testdataPath(STORIES_GGUF), { contextLength: 256 });
  });
  afterAll(() => {
    model?.dispose();
    releaseWasmModules();
  });

  test('greedy pieces are llama.cpp\'s tokens, and their texts join to the decoded text', async () => {
    const pieces = [];
    const it = model.generate(PROMPT, { temperature: 0, maxTokens: greedy.length, ignoreEos: true });
    let r;
    while (!(r = await it.next()).done) pieces.push(r.value);
    expect(r.value.tokens).toEqual(greedy);
    expect(pieces.flatMap((p) => p.tokens)).toEqual(greedy);
    expect(pieces.map((p) => p.text).join('')).toBe(model.tokenizer.decode(greedy));
    expect(r.value.text).toBe(model.tokenizer.decode(greedy));
    expect(r.value.finishReason).toBe('length');
    expect(r.value.promptTokens).toBe(PROMPT.length);
  });

  test('a stop string ends the text before it; text prompts are tokenized with BOS', async () => {
    const full = model.tokenizer.decode(greedy);
    const stop = full.slice(full.indexOf(' girl'), full.indexOf(' girl') + 4); // " gir": ends inside a token
    const result = await model.complete('Once upon a time', { temperature: 0, maxTokens: 64, stop: [stop] });
    expect(result.finishReason).toBe('stop');
    expect(result.text).toBe(full.slice(0, full.indexOf(stop)));
    expect(result.tokens).toEqual(greedy.slice(0, result.tokens.length));
  });

  test('the end-of-sequence token ends generation unless ignoreEos', async () => {
    const eos = model.tokenizer.eos;
    const forced = { temperature: 0, logitBias: [[eos, 100]] };
    const stopped = await model.complete(PROMPT, { ...forced, maxTokens: 5 });
    expect(stopped).toMatchObject({ tokens: [eos], text: '', finishReason: 'eos' });
    const ignored = await model.complete(PROMPT, { ...forced, maxTokens: 5, ignoreEos: true });
    expect(ignored.tokens).toEqual([eos, eos, eos, eos, eos]);
    expect(ignored.finishReason).toBe('length');
  });

  test('an abort signal stops a generation between tokens with an ABORTED error', async () => {
    const controller = new AbortController();
    const it = model.generate(PROMPT, { temperature: 0, maxTokens: 100, ignoreEos: true, signal: controller.signal });
    await it.next();
    controller.abort();
    await expect(it.next()).rejects.toMatchObject({ name: 'WasmLMError', code: 'ABORTED' });
    // The session is still usable.
    expect((await model.complete(PROMPT, { temperature: 0, maxTokens: 3 })).tokens).toEqual(greedy.slice(0, 3));
  });

  test('a prompt that extends the context reuses it and gives the fresh sequence\'s tokens', async () => {
    const first = await model.complete(PROMPT, { temperature: 0, maxTokens: 8, ignoreEos: true });
    const longer = [...PROMPT, ...first.tokens.slice(0, 7)]; // the context holds PROMPT + 7 evaluated tokens
    const reused = await model.complete(longer, { temperature: 0, maxTokens: 6, ignoreEos: true });
    expect(reused.cachedPromptTokens).toBe(longer.length); // the whole context: its last logits are current
    model.reset();
    const fresh = await model.complete(longer, { temperature: 0, maxTokens: 6, ignoreEos: true });
    expect(fresh.cachedPromptTokens).toBe(0);
    expect(reused.tokens).toEqual(fresh.tokens);
    expect(fresh.tokens).toEqual(greedy.slice(7, 13));
  });

  test('saveState/loadState restore the context: generation goes on as from the original', async () => {
    model.reset();
    model.eval(PROMPT);
    const state = model.saveState();
    expect(state.tokens).toEqual(PROMPT);
    const want = await model.complete(PROMPT, { temperature: 0, maxTokens: 5, ignoreEos: true });
    model.reset();
    model.loadState(state);
    expect(model.tokens).toEqual(PROMPT);
    const got = await model.complete(PROMPT, { temperature: 0, maxTokens: 5, ignoreEos: true });
    expect(got.cachedPromptTokens).toBe(PROMPT.length);
    expect(got.tokens).toEqual(want.tokens);
    const truncated = { ...state, kv: state.kv.subarray(0, state.kv.length - 1) };
    expect(() => model.loadState(truncated)).toThrow(expect.objectContaining({ code: 'TRUNCATED' }));
  });

  test('wasmlm run --stop cuts the text and says why it finished', async () => {
    const full = model.tokenizer.decode(greedy);
    const { stdout } = await run('node', ['web/bin/wasmlm.js', 'run', testdataPath(STORIES_GGUF), '--prompt', 'Once upon a time',
      '--n', '32', '--stop', 'Lily', '--json'], { cwd: REPO_ROOT });
    const result = JSON.parse(stdout);
    expect(result.text).toBe(full.slice(0, full.indexOf('Lily')));
    expect(result.finish_reason).toBe('stop');
  }, 60000);
});
