// What the reference recorders take from native llama.cpp (node-llama-cpp)
// per run: the logits after the prompt, greedy ids with each step's top-2
// margin, and each step's 16 largest logits; and the file fingerprint the
// native tests check without a SHA-256.
import fs from 'node:fs';

/** FNV-1a 64 of the file as hex. */
export function fnv1a64(file) {
  let h = 0xcbf29ce484222325n;
  for (const b of fs.readFileSync(file)) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h.toString(16).padStart(16, '0');
}

function byId(map, n) {
  const out = new Float64Array(n);
  for (const [id, v] of map) out[id] = v;
  return Array.from(out, (v) => Math.fround(v));
}

/** The k largest logits as [[id, value], ...], largest first. */
const topK = (logits, k) => logits.map((v, id) => [id, v]).sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, k);

function top2(logits) {
  let a = 0, b = -1;
  for (let i = 1; i < logits.length; i++) {
    if (logits[i] > logits[a]) { b = a; a = i; } else if (b < 0 || logits[i] > logits[b]) b = i;
  }
  return { id: a, margin: logits[a] - logits[b] };
}

/**
 * Evaluates the prompt on a fresh sequence (in one batch, or token by token),
 * then `steps` greedy steps; nVocab logits per step.
 */
export async function recordSteps(sequence, prompt, steps, nVocab, { tokenByToken = false } = {}) {
  const want = { generateNext: { logits: true } };
  let out;
  if (tokenByToken) {
    for (let i = 0; i < prompt.length; i++) out = await sequence.controlledEvaluate([i === prompt.length - 1 ? [prompt[i], want] : prompt[i]]);
    out = [out[0]];
  } else {
    out = await sequence.controlledEvaluate(prompt.map((t, i) => (i === prompt.length - 1 ? [t, want] : t)));
  }
  let logits = byId(out[out.length - 1].next.logits, nVocab);
  const first = logits;
  const greedy = [], margins = [], stepTop = [];
  for (let s = 0; s < steps; s++) {
    const { id, margin } = top2(logits);
    greedy.push(id);
    margins.push(margin);
    stepTop.push(topK(logits, 16));
    if (s + 1 === steps) break;
    out = await sequence.controlledEvaluate([[id, want]]);
    logits = byId(out[0].next.logits, nVocab);
  }
  return { logits: first, greedy_ids: greedy, margins, step_top: stepTop };
}

/** JSON with float32 values in 9 significant digits (which give them back exactly). */
export const referenceJson = (reference) =>
  `${JSON.stringify(reference, (key, v) => (typeof v === 'number' && !Number.isInteger(v) ? Number(v.toPrecision(9)) : v))}\n`;
