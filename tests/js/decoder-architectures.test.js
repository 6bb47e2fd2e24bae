// Every decoder architecture in wasm, through the CLI path users and the
// benchmarks take (`wasmlm run FILE --prompt-ids ... --temp 0 --logits OUT
// --json`), against native llama.cpp's outputs on the random-weight test
// models (tests/models/decoder-models.js; references recorded by
// tests/reference/decoder/record-references.js), single-threaded and with
// the pthreads build. The pass rule is the native suite's
// (tests/native/decoder_reference_test.cpp): next-token probabilities of
// the reference's 50 most likely tokens within 1e-4 (F32) / 1e-2 (Q8_0),
// greedy ids equal up to the first step whose margin is below 0.1 / 0.25.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ensureDecoderModel } from '../models/decoder-models.js';
import { describeWithTestdata, REPO_ROOT, TESTDATA } from './helpers/testdata.js';

const run = promisify(execFile);
const REFERENCES = path.join(REPO_ROOT, 'tests/reference/decoder');

function softmax(logits) {
  const top = Math.max(...logits);
  const e = Array.from(logits, (v) => Math.exp(v - top));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / sum);
}

const cases = fs.readdirSync(REFERENCES).filter((f) => f.endsWith('.json')).sort()
  .flatMap((f) => [1, 2].map((threads) => [f.replace(/\.json$/, ''), threads]));

describeWithTestdata('decoder architectures in wasm match llama.cpp', () => {
  test.each(cases)('%s, %i thread(s)', async (name, threads) => {
    const reference = JSON.parse(fs.readFileSync(path.join(REFERENCES, `${name}.json`), 'utf8'));
    const [model, type] = [name.replace(/-(F32|Q8_0)$/, ''), name.match(/(F32|Q8_0)$/)[1]];
    const file = ensureDecoderModel(model, type, TESTDATA);
    const quantized = type === 'Q8_0';
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmlm-arch-'));
    for (const [r, ref] of reference.runs.entries()) {
      const out = path.join(dir, `logits-${r}.f32`);
      const { stdout } = await run('node', ['web/bin/wasmlm.js', 'run', file, '--prompt-ids', ref.prompt_ids.join(','),
        '--n', String(ref.greedy_ids.length), '--temp', '0', '--ignore-eos', '--kv', 'f32', '--ctx', String(ref.n_ctx),
        '--threads', String(threads), '--logits', out, '--json'], { cwd: REPO_ROOT });
      const result = JSON.parse(stdout);
      expect(result.prompt_ids).toEqual(ref.prompt_ids);
      expect(result.timings.threads).toBe(threads);
      const b = fs.readFileSync(out);
      const p = softmax(new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4));
      const q = softmax(ref.logits);
      const top50 = q.map((v, id) => [v, id]).sort((x, y) => y[0] - x[0]).slice(0, 50);
      const worst = Math.max(...top50.map(([v, id]) => Math.abs(p[id] - v)));
      expect(worst).toBeLessThanOrEqual(quantized ? 1e-2 : 1e-4);
      const sure = ref.margins.findIndex((m) => m < (quantized ? 0.25 : 0.1));
      const n = sure < 0 ? ref.greedy_ids.length : sure;
      expect(result.ids.slice(0, n)).toEqual(ref.greedy_ids.slice(0, n));
    }
  }, 60000);
});
