// `wasmlm run` on llama.cpp's pre-GGUF GGJT v3 TinyLLama-v0 (Q4_0 + F32)
// gives native llama.cpp's prompt ids, greedy ids and logits, recorded on
// the same tensors and vocabulary written as GGUF
// (tests/reference/legacy: ggjt-to-gguf.js, record-references.js).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describeWithTestdata, REPO_ROOT, TINYLLAMA_GGJT, testdataPath } from './helpers/testdata.js';

const run = promisify(execFile);
const REF = path.join(REPO_ROOT, 'tests/reference/legacy');

describeWithTestdata('running a GGJT v3 file', () => {
  const reference = JSON.parse(fs.readFileSync(path.join(REF, 'tinyllama-v0-ggjt.json'), 'utf8'));

  test('wasmlm run TinyLLama-v0.ggmlv3.q4_0.bin gives llama.cpp\'s prompt ids, greedy ids and logits', async () => {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wasmlm-')), 'logits.f32');
    const { stdout } = await run('node', ['web/bin/wasmlm.js', 'run', testdataPath(TINYLLAMA_GGJT), '--prompt', reference.prompt,
      '--n', '8', '--temp', '0', '--logits', out, '--json'], { cwd: REPO_ROOT });
    const result = JSON.parse(stdout);
    expect(result.prompt_ids).toEqual(reference.prompt_ids);
    // The first 8 reference margins are all above 0.1 (the smallest, 0.07, is at step 11).
    expect(Math.min(...reference.greedy_margins.slice(0, 8))).toBeGreaterThan(0.1);
    expect(result.ids).toEqual(reference.greedy_ids.slice(0, 8));
    expect(result.text).toBe(', there was a little girl named Lily');
    const b = fs.readFileSync(out);
    const logits = new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
    const r = fs.readFileSync(path.join(REF, reference.logits_file));
    const want = new Float32Array(r.buffer, r.byteOffset, r.byteLength / 4);
    expect(logits.length).toBe(want.length);
    let maxDiff = 0;
    logits.forEach((v, i) => { maxDiff = Math.max(maxDiff, Math.abs(v - want[i])); });
    // Quantized files: 2% of the reference's range (measured natively: 0.063 of 18.5).
    expect(maxDiff).toBeLessThan(0.02 * (reference.logits_max - reference.logits_min));
  }, 60000);
});
