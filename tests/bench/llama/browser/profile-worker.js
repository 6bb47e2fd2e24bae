// wasmlm in a module Worker for profile.js, one step per message: open the
// model and warm up (bench-ours.js's warm-up; a decode's prompt too), then
// the phase to profile, timed.
import { openModel } from '/web/src/index.js';

let session = null;
const ids = (n) => Array.from({ length: n }, (_, i) => 300 + ((i * 7919) % 30000));

const commands = {
  async open({ url, threads, contextLength, promptTokens, warmUp }) {
    session = await openModel(url, { threads, contextLength });
    session.eval(ids(warmUp.promptTokens), { logits: false });
    for (let i = 0; i < warmUp.steps; i++) session.eval([400 + i], { logits: false });
    session.reset();
    session.eval(ids(promptTokens), { logits: false });  // a decode's context
    return {};
  },
  decode({ steps }) {
    for (let i = 0; i < steps; i++) session.eval([500 + i], { logits: false });
  },
  prompt({ reps, promptTokens }) {
    for (let r = 0; r < reps; r++) {
      session.reset();
      session.eval(ids(promptTokens), { logits: false });
    }
  },
};

self.onmessage = async ({ data }) => {
  try {
    const t0 = performance.now();
    await commands[data.cmd](data);
    self.postMessage({ ms: performance.now() - t0 });
  } catch (error) {
    self.postMessage({ error: String(error?.stack ?? error) });
  }
};
