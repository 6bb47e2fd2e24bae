// A model whose hyperparameters do not fit its tensors is refused as soon as
// its directory is read, before the memory check reserves room for weights
// and a KV cache sized by those hyperparameters: the load fails with
// BAD_FORMAT naming what is wrong, and the wasm heap stays under the file's
// size + 64 MiB (it used to grow to ~2 GB first, or fail OUT_OF_MEMORY).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inspect, loadModel, loadWasmModule, openModel, releaseWasmModules } from '../../web/src/index.js';
import { Bytes, GT, readTokenizerPairs, writeGguf } from '../models/gguf-write.js';
import { describeWithTestdata, STORIES_GGUF, testdataPath } from './helpers/testdata.js';

const MiB = 1024 * 1024;

/** stories260K rewritten with `changes` ({key: u32}) replacing or adding metadata pairs. */
async function storiesWith(changes, dir) {
  const source = testdataPath(STORIES_GGUF);
  const bytes = fs.readFileSync(source);
  const head = new Bytes();
  const left = new Map(Object.entries(changes));
  let pairs = 0;
  for (const pair of readTokenizerPairs(source, '')) {
    const key = pair.toString('utf8', 8, 8 + Number(pair.readBigUInt64LE(0)));
    if (left.has(key)) head.kv(key, GT.U32, left.get(key));
    else head.push(pair);
    left.delete(key);
    pairs += 1;
  }
  for (const [key, value] of left) {
    head.kv(key, GT.U32, value);
    pairs += 1;
  }
  const plan = (await inspect(source)).tensors.map((t) => ({
    name: t.name, type: t.type, shape: t.shape, nbytes: t.nbytes, make: () => bytes.subarray(t.offset, t.offset + t.nbytes),
  }));
  return writeGguf(path.join(dir, `stories260K-${Object.keys(changes).join('-')}.gguf`), head, pairs, plan).file;
}

describeWithTestdata('models whose hyperparameters do not fit their tensors', () => {
  let dir;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmlm-refusal-'));
  });
  afterAll(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    releaseWasmModules();
  });

  const cases = [
    ['hostile/stories260K-head_count_kv-65536.gguf', null, /head_count \(8\) must be a multiple of llama\.attention\.head_count_kv \(65536\)/],
    ['65536 blocks', { 'llama.block_count': 65536 }, /llama\.block_count is 65536 but the file has tensors for 5 blocks/],
    ['a 2^23 embedding length', { 'llama.embedding_length': 2 ** 23 }, /n_embd = llama\.embedding_length = 8388608/],
    ['a 2^31 context length', { 'llama.context_length': 2 ** 31 }, /below 2\^24 for llama\.context_length/],
    ['a 2^24-token vocabulary', { 'llama.vocab_size': 2 ** 24 }, /16777216 tokens \(llama\.vocab_size\) but token_embd\.weight has 512 rows/],
  ];

  test.each(cases)('%s: BAD_FORMAT before the memory check, the heap under the file size + 64 MiB', async (name, changes, message) => {
    const file = changes ? await storiesWith(changes, dir) : testdataPath(name);
    const limit = fs.statSync(file).size + 64 * MiB;
    const wasm = await loadWasmModule();
    // 190 tokens: the KV cache these claims imply fits in 4 GB and used to be reserved.
    for (const open of [() => openModel(file, { contextLength: 190 }), () => loadModel(file, { threads: 1 })]) {
      await expect(open()).rejects.toMatchObject({ name: 'WasmLMError', code: 'BAD_FORMAT', message: expect.stringMatching(message) });
      expect(wasm.HEAPU8.buffer.byteLength).toBeLessThanOrEqual(limit);
    }
  });
});
