// Two calls on one model never corrupt each other: a LanguageModel (worker)
// queues them, so each equals its solo run; an openModel session, whose
// calls are synchronous, refuses the later one with BUSY.
import { loadModel, openModel, releaseWasmModules } from '../../web/src/index.js';
import { describeWithTestdata, STORIES_GGUF, testdataPath } from './helpers/testdata.js';

const GREEDY = { temperature: 0, maxTokens: 40, ignoreEos: true };
const SAMPLED = { temperature: 0.9, seed: 11, maxTokens: 40, ignoreEos: true };

describeWithTestdata('concurrent calls', () => {
  let lm;
  let session;
  const solo = {};
  beforeAll(async () => {
    lm = await loadModel(testdataPath(STORIES_GGUF), { threads: 1, contextLength: 256 });
    session = await openModel(testdataPath(STORIES_GGUF), { contextLength: 256 });
    solo.a = await session.complete('Once upon a time', GREEDY);
    solo.b = await session.complete('The little dog', SAMPLED);
  });
  afterAll(async () => {
    await lm?.dispose();
    session?.dispose();
    releaseWasmModules();
  });

  test('two complete() calls on a LanguageModel each equal their solo run', async () => {
    const [a, b] = await Promise.all([lm.complete('Once upon a time', GREEDY), lm.complete('The little dog', SAMPLED)]);
    expect(a.tokens).toEqual(solo.a.tokens);
    expect(b.tokens).toEqual(solo.b.tokens);
    expect(b.text).toBe(solo.b.text);
  });

  test('two generate() streams read in turns each equal their solo run', async () => {
    const x = lm.generate('Once upon a time', GREEDY);
    const y = lm.generate('The little dog', SAMPLED);
    const texts = ['', ''];
    let doneX = false;
    let doneY = false;
    let resultX;
    let resultY;
    while (!doneX || !doneY) {
      if (!doneX) {
        const r = await x.next();
        if (r.done) { doneX = true; resultX = r.value; } else texts[0] += r.value.text;
      }
      if (!doneY) {
        const r = await y.next();
        if (r.done) { doneY = true; resultY = r.value; } else texts[1] += r.value.text;
      }
    }
    expect(resultX.tokens).toEqual(solo.a.tokens);
    expect(resultY.tokens).toEqual(solo.b.tokens);
    expect(texts).toEqual([solo.a.text, solo.b.text]);
  });

  test('reset() and saveState() during a generation wait for it', async () => {
    const generation = lm.complete('Once upon a time', GREEDY);
    const state = lm.saveState();
    const reset = lm.reset();
    expect((await generation).tokens).toEqual(solo.a.tokens);
    expect((await state).tokens).toHaveLength(solo.a.promptTokens + solo.a.tokens.length - 1);
    await reset;
    expect((await lm.complete('Once upon a time', GREEDY)).cachedPromptTokens).toBe(0);
  });

  test('an openModel session refuses calls during a generation with BUSY, then works again', async () => {
    const it = session.generate('Once upon a time', GREEDY);
    await it.next();
    await expect(session.complete('The little dog', SAMPLED)).rejects.toMatchObject({ code: 'BUSY' });
    for (const call of [() => session.reset(), () => session.saveState(), () => session.eval([1]), () => session.sample()]) {
      expect(call).toThrow(expect.objectContaining({ name: 'WasmLMError', code: 'BUSY' }));
    }
    let r;
    while (!(r = await it.next()).done);
    expect(r.value.tokens).toEqual(solo.a.tokens);
    expect((await session.complete('The little dog', SAMPLED)).tokens).toEqual(solo.b.tokens);
  });

  test('breaking out of a session\'s generation frees it', async () => {
    for await (const piece of session.generate('Once upon a time', GREEDY)) {
      expect(typeof piece.text).toBe('string');
      break;
    }
    expect((await session.complete('Once upon a time', GREEDY)).tokens).toEqual(solo.a.tokens);
  });
});
