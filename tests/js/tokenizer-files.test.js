// Tokenizer files outside GGUF (tiktoken rank files, SentencePiece .model,
// Hugging Face tokenizer.json) through the CLI and openTokenizer(), against
// torchtune's, SentencePiece's and llama.cpp's reference ids.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import { openTokenizer } from '../../web/src/index.js';
import { describeWithTestdata, REPO_ROOT, testdataPath } from './helpers/testdata.js';

const exec = promisify(execFile);
const TIKTOKEN = 'tokenizers/torchtune-small/tiktoken_small.model';
const M_MODEL = 'tokenizers/torchtune-small/m.model';
const LLAMA3_JSON = 'tokenizers/llama3/tokenizer.json';
const LLAMA_BPE = 'tokenizers/llamacpp-vocab/ggml-vocab-llama-bpe.gguf';

const readJson = (relative) => JSON.parse(fs.readFileSync(testdataPath(relative), 'utf8'));
const torchtune = () => readJson('tokenizers/test-vectors/torchtune-small-vectors.json');

async function tokenize(file, ...args) {
  const { stdout } = await exec('node', ['web/bin/wasmlm.js', 'tokenize', testdataPath(file), ...args],
    { cwd: REPO_ROOT, maxBuffer: 16 << 20 });
  return stdout.trim() === '' ? [] : stdout.trim().split(' ').map(Number);
}

describeWithTestdata('tokenizer files in wasm', () => {
  test('wasmlm tokenize on a tiktoken file gives torchtune\'s ids', async () => {
    const { cases } = torchtune()['tiktoken_small.model'];
    expect(cases.length).toBeGreaterThan(0);
    for (const c of cases) expect(await tokenize(TIKTOKEN, '--text', c.text)).toEqual(c.ids);
  }, 60000);

  test('wasmlm tokenize --tiktoken-specials 128000 reproduces torchtune\'s LLaMA 3 chat ids', async () => {
    const { user_message: user } = torchtune()['tiktoken_small.model'].llama3_chat_example;
    const text = `<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\n${user.content}<|eot_id|>`;
    expect(await tokenize(TIKTOKEN, '--tiktoken-specials', '128000', '--special', '--text', text)).toEqual(user.ids);
  }, 60000);

  test('wasmlm tokenize on a SentencePiece .model gives SentencePiece\'s ids', async () => {
    const { cases } = torchtune()['m.model'];
    expect(cases.length).toBeGreaterThan(0);
    for (const c of cases) {
      expect(await tokenize(M_MODEL, '--text', c.text)).toEqual(c.ids_no_bos_eos);
      expect(await tokenize(M_MODEL, '--bos', '--text', c.text)).toEqual([1, ...c.ids_no_bos_eos]);
    }
  }, 60000);

  test('wasmlm tokenize --cases on LLaMA 3\'s tokenizer.json reproduces llama.cpp\'s llama-bpe .out', async () => {
    const { stdout } = await exec('node', ['web/bin/wasmlm.js', 'tokenize', testdataPath(LLAMA3_JSON), '--cases',
      testdataPath(`${LLAMA_BPE}.inp`)], { cwd: REPO_ROOT, maxBuffer: 16 << 20 });
    expect(stdout).toBe(fs.readFileSync(testdataPath(`${LLAMA_BPE}.out`), 'utf8'));
  }, 60000);

  test('openTokenizer() reads tokenizer files from bytes and streams, with typed errors', async () => {
    const stories = readJson('pytorch/meta-stories260K/tokenizer-vectors.json');
    const bytes = fs.readFileSync(testdataPath('pytorch/meta-stories260K/f32/tokenizer.model'));
    const fromBytes = await openTokenizer(new Uint8Array(bytes));
    const fromStream = await openTokenizer(new Blob([bytes]).stream());
    try {
      for (const c of stories) {
        expect(fromBytes.encode(c.text, { addBos: false })).toEqual(c.ids);
        expect(fromStream.encode(c.text, { addBos: false })).toEqual(c.ids);
      }
      expect(fromBytes.encode('Once upon a time')).toEqual([fromBytes.bos, ...stories[0].ids]);
    } finally {
      fromBytes.dispose();
      fromStream.dispose();
    }
    const ollama = readJson('tokenizers/test-vectors/llama3-ollama-vectors.json');
    const llama3 = await openTokenizer(testdataPath(LLAMA3_JSON));
    try {
      for (const c of ollama.cases) expect(llama3.encode(c.text, { addBos: false, parseSpecial: true })).toEqual(c.ids);
    } finally {
      llama3.dispose();
    }
    const enc = new TextEncoder();
    const garbage = '{"model": {"type": "BPE", "vocab": {"a": 0,,}}}';
    await expect(openTokenizer(enc.encode(garbage)))
      .rejects.toMatchObject({ name: 'WasmLMError', code: 'BAD_FORMAT', offset: garbage.indexOf(',,') + 1 });
    await expect(openTokenizer(enc.encode('IQ== 0\nIg== 1\nI*== 2\n')))
      .rejects.toMatchObject({ code: 'BAD_FORMAT', offset: 14, message: expect.stringContaining('line 3') });
    await expect(openTokenizer(bytes.subarray(0, bytes.length >> 1)))
      .rejects.toMatchObject({ code: 'TRUNCATED' });
    await expect(openTokenizer(enc.encode('hello, world\n')))
      .rejects.toMatchObject({ code: 'BAD_FORMAT', offset: 0, message: expect.stringContaining('tiktoken') });
  }, 60000);
});
