// The timed run of wasmlm, shared by Node (node-ours.js) and the browser
// Worker (browser/ours-worker.js). Every engine is timed the same way:
//   prompt: evaluate the prompt ids (one call) + pick the first token;
//   decode: `nGen` steps of (evaluate the last token + pick the next one).
// Greedy, never picking ids below BANNED_BELOW (unk, BOS, EOS and the 256
// byte tokens of the LLaMA vocabulary): every engine makes exactly the same
// number of steps, and the text stays valid UTF-8 (wllama's server fails on
// a half character). `banned` adds ids (end-of-generation tokens: RWKV
// World's EOT, Qwen's added tokens, which would end node-llama-cpp's generation).
export const BANNED_BELOW = 259;

/** Greedy pick: the session's sampler at temperature 0; the argmax of the allowed ids if it picked a banned one. */
function pickGreedy(session, banned) {
  const id = session.sample({ temperature: 0 });
  if (id >= BANNED_BELOW && !banned.has(id)) return id;
  const logits = session.logits();
  let best = -1;
  for (let i = BANNED_BELOW; i < logits.length; i++) {
    if ((best < 0 || logits[i] > logits[best]) && !banned.has(i)) best = i;
  }
  return best;
}

// The warm-up before a timed run, every engine alike, so that the figures
// are steady speeds. Engines run wasm in a baseline compiler first and
// optimize hot functions in the background: in Chromium the first 8
// decoding steps of the S model after an 8-token, 4-step warm-up took
// 20-100 ms against 6-8 ms steady, and single steps up to the 40th 10-33 ms
// (2026-11-29; S Q4_0 decoded at 145-152 tokens/s after 16 warm-up steps,
// 158-164 after 96). wasmlm's row-touch trial (steps 16-23) falls in it too.
export const WARM_UP = { promptTokens: 32, steps: 64 };

/**
 * @param {(input: unknown, options: object) => Promise<any>} openModel wasmlm's openModel
 * @param {unknown} input path or URL of the model
 * @param {{threads: number, prompt: number[], nGen: number, contextLength?: number, banned?: number[]}} options
 */
export async function benchOurs(openModel, input, { threads, prompt, nGen, contextLength = 512, banned: bannedIds = [] }) {
  const banned = new Set(bannedIds);
  const t0 = performance.now();
  const session = await openModel(input, { threads, contextLength });
  const loadMs = performance.now() - t0;
  try {
    // warm-up (wasm tier-up, first touches of the weights), then forget it
    session.eval(prompt.slice(0, WARM_UP.promptTokens), { logits: false });
    for (let i = 0; i < WARM_UP.steps; i++) session.eval([pickGreedy(session, banned)], { logits: false });
    session.reset();

    const tokens = [];
    const t1 = performance.now();
    session.eval(prompt, { logits: false });
    tokens.push(pickGreedy(session, banned));
    const t2 = performance.now();
    let finite = true;
    for (let i = 0; i < nGen; i++) {
      session.eval([tokens[tokens.length - 1]], { logits: false });
      tokens.push(pickGreedy(session, banned));
    }
    const t3 = performance.now();
    const logits = session.logits();
    for (let i = 0; i < logits.length; i += 97) if (!Number.isFinite(logits[i])) finite = false;
    const { memory, fileSize } = session.describe?.() ?? {};
    return {
      threads: session.threads, loadMs, promptMs: t2 - t1, decodeMs: t3 - t2,
      promptTokens: prompt.length, decodeSteps: nGen, tokens, finite,
      memory: memory && { ...memory, fileSize }, // the wasm heap never shrinks: its size now is the peak
    };
  } finally {
    session.dispose();
  }
}
