// The wasmlm command line, run as a separate process.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { inspect } from '../../web/src/index.js';
import { toJson } from '../../web/src/cli/json.js';
import { describeWithTestdata, REPO_ROOT, RWKV_5V2_FP32, STORIES_GGUF, testdataPath } from './helpers/testdata.js';

const CLI = path.join(REPO_ROOT, 'web/bin/wasmlm.js');

async function wasmlm(...args) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], { cwd: REPO_ROOT });
    return { code: 0, stdout, stderr };
  } catch (error) {
    if (typeof error.code !== 'number') throw error;
    return { code: error.code, stdout: error.stdout, stderr: error.stderr };
  }
}

describe('wasmlm CLI usage', () => {
  test('--help lists the commands and exits 0', async () => {
    const { code, stdout } = await wasmlm('--help');
    expect(code).toBe(0);
    expect(stdout).toMatch(/Usage: wasmlm <command>/);
    expect(stdout).toMatch(/inspect/);
  });

  test('inspect --help shows its usage', async () => {
    const { code, stdout } = await wasmlm('inspect', '--help');
    expect(code).toBe(0);
    expect(stdout).toMatch(/wasmlm inspect FILE \[--json\]/);
  });

  test('no command, an unknown command or a missing FILE exit 2', async () => {
    expect((await wasmlm()).code).toBe(2);
    const unknown = await wasmlm('frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^wasmlm: unknown command 'frobnicate'/);
    expect((await wasmlm('inspect')).code).toBe(2);
    expect((await wasmlm('inspect', 'a', '--bogus')).code).toBe(2);
  });

  test('a missing file exits 1 with an IO error', async () => {
    const { code, stderr } = await wasmlm('inspect', 'no/such/model.gguf');
    expect(code).toBe(1);
    expect(stderr).toMatch(/^wasmlm: IO: cannot read no\/such\/model.gguf/);
  });

  test('a file that is no model exits 1 with BAD_FORMAT at byte 0', async () => {
    const { code, stdout, stderr } = await wasmlm('inspect', 'package.json');
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^wasmlm: BAD_FORMAT at byte 0: expected a GGUF/);
  });
});

describeWithTestdata('wasmlm inspect on test models', () => {
  test('--json prints the inspect() result', async () => {
    const file = testdataPath(STORIES_GGUF);
    const { code, stdout } = await wasmlm('inspect', file, '--json');
    expect(code).toBe(0);
    const printed = JSON.parse(stdout);
    expect(printed).toEqual(JSON.parse(toJson(await inspect(file))));
    expect(printed.tensors).toHaveLength(48);
    expect(printed.metadata['tokenizer.ggml.scores']).toHaveLength(512); // typed array -> array
  });

  test('the text report shows format, hyperparameters, tokenizer and tensors', async () => {
    const { code, stdout } = await wasmlm('inspect', path.relative(REPO_ROOT, testdataPath(STORIES_GGUF)));
    expect(code).toBe(0);
    expect(stdout).toMatch(/format\s+GGUF v3, little-endian, alignment 32/);
    expect(stdout).toMatch(/Architecture: llama/);
    expect(stdout).toMatch(/head count kv\s+4/);
    expect(stdout).toMatch(/Tokenizer: llama, 512 tokens/);
    expect(stdout).toMatch(/bos\s+1 "<s>"/);
    expect(stdout).toContain('[string × 512] "<unk>", "<s>", "</s>", …');
    expect(stdout).toMatch(/Tensors \(48\)/);
    expect(stdout).toMatch(/blk\.0\.ffn_down\.weight\s+F32\s+172 × 64\s+44,032/);
    expect(stdout).toMatch(/F32\s+48 tensors\s+1,171,200 bytes\s+100\.0%/);
  });

  test('an rwkv.cpp file reports its RWKV version', async () => {
    const { code, stdout } = await wasmlm('inspect', testdataPath(RWKV_5V2_FP32));
    expect(code).toBe(0);
    expect(stdout).toMatch(/format\s+rwkv\.cpp v101/);
    expect(stdout).toMatch(/rwkv version\s+5\.2/);
  });

  test('a truncated file exits 1 with TRUNCATED at its byte offset', async () => {
    const fs = await import('node:fs');
    const os = await import('node:os');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmlm-cli-'));
    try {
      const cut = path.join(dir, 'cut.gguf');
      fs.writeFileSync(cut, fs.readFileSync(testdataPath(STORIES_GGUF)).subarray(0, 5000));
      const { code, stderr } = await wasmlm('inspect', cut);
      expect(code).toBe(1);
      expect(stderr).toMatch(/^wasmlm: TRUNCATED at byte \d+: expected /);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
