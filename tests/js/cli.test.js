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

  test('--version prints the package version', async () => {
    const { version } = JSON.parse(await (await import('node:fs/promises')).readFile(path.join(REPO_ROOT, 'package.json'), 'utf8'));
    expect(await wasmlm('--version')).toEqual({ code: 0, stdout: `wasmlm ${version}\n`, stderr: '' });
  });

  test('--help is one line per command', async () => {
    const { stdout } = await wasmlm('--help');
    const commands = stdout.split('\n').filter((l) => /^ {2}\w/.test(l));
    expect(commands.map((l) => l.trim().split(/\s+/)[0])).toEqual(['inspect', 'tensor', 'run', 'tokenize']);
  });

  test('bad usage is one line naming what was wrong and where help is, exit 2', async () => {
    const cases = [
      [['inspect', 'a.gguf', '--bogus'], "wasmlm inspect: unknown option '--bogus' (see 'wasmlm inspect --help')\n"],
      [['run', 'a.gguf', '--prompt', 'x', '--n', 'many'], "wasmlm run: --n expects an integer >= 0 (see 'wasmlm run --help')\n"],
      [['run', 'a.gguf', '--prompt', 'x', '--top-k', '-3'],
        "wasmlm run: option '--top-k' needs a value (a negative one as --top-k=-3) (see 'wasmlm run --help')\n"],
      [['tokenize'], "wasmlm tokenize: tokenize takes exactly one FILE (see 'wasmlm tokenize --help')\n"],
      [['frobnicate'], "wasmlm: unknown command 'frobnicate' (see 'wasmlm --help')\n"],
    ];
    for (const [args, stderr] of cases) expect(await wasmlm(...args)).toEqual({ code: 2, stdout: '', stderr });
  });

  test('errors are one line without a stack; --debug adds the stack', async () => {
    const plain = await wasmlm('inspect', 'no/such/model.gguf');
    expect(plain.stderr.split('\n')).toHaveLength(2); // one line and the final newline
    const debug = await wasmlm('inspect', 'no/such/model.gguf', '--debug');
    expect(debug.code).toBe(1);
    expect(debug.stderr.split('\n')[0]).toBe(plain.stderr.trimEnd());
    expect(debug.stderr).toMatch(/\n\s+at .*node-file-source\.js/);
  });

  test('a URL that cannot be fetched is named with the cause', async () => {
    const http = await import('node:http');
    const server = http.createServer();
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address();
    await new Promise((resolve) => server.close(resolve)); // nothing listens there now
    const url = `http://127.0.0.1:${port}/model.gguf`;
    const { code, stderr } = await wasmlm('inspect', url);
    expect(code).toBe(1);
    expect(stderr).toBe(`wasmlm inspect: IO: cannot fetch ${url}: fetch failed: connect ECONNREFUSED 127.0.0.1:${port}\n`);
  });

  test('a missing file exits 1 with an IO error', async () => {
    const { code, stderr } = await wasmlm('inspect', 'no/such/model.gguf');
    expect(code).toBe(1);
    expect(stderr).toMatch(/^wasmlm inspect: IO: cannot read no\/such\/model.gguf/);
  });

  test('a file that is no model exits 1 with BAD_FORMAT at byte 0', async () => {
    const { code, stdout, stderr } = await wasmlm('inspect', 'package.json');
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^wasmlm inspect: BAD_FORMAT at byte 0: expected a GGUF/);
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
    expect(stdout).toMatch(/Decoder: llama \(LLaMA/);
    expect(stdout).toMatch(/activation\s+silu/);
    expect(stdout).toMatch(/kv cache f16\s+bytes per position 640, windowed bytes per position 0/);
    expect(stdout).not.toContain('[object Object]');
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
      expect(stderr).toMatch(/^wasmlm inspect: TRUNCATED at byte \d+: expected /);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describeWithTestdata('wasmlm run and tokenize speak the CLI\'s language', () => {
  test('out of memory names --ctx, not the JS option', async () => {
    const { code, stderr } = await wasmlm('run', testdataPath(STORIES_GGUF), '--prompt', 'hi', '--ctx', '900000000');
    expect(code).toBe(1);
    expect(stderr).toMatch(/^wasmlm run: OUT_OF_MEMORY: .*; use a smaller --ctx\n$/);
  });

  test('stdin less its one trailing newline is --text; --raw keeps it', async () => {
    const pipe = (input, ...args) => new Promise((resolve, reject) => {
      const child = execFile(process.execPath, [CLI, 'tokenize', testdataPath(STORIES_GGUF), ...args], { cwd: REPO_ROOT },
        (error, stdout) => (error ? reject(error) : resolve(stdout)));
      child.stdin.end(input);
    });
    const hello = (await wasmlm('tokenize', testdataPath(STORIES_GGUF), '--text', 'hello')).stdout;
    expect(await pipe('hello\n')).toBe(hello);
    expect(await pipe('hello\r\n')).toBe(hello);
    expect(await pipe('hello')).toBe(hello);
    expect(await pipe('hello\n', '--raw')).toBe((await wasmlm('tokenize', testdataPath(STORIES_GGUF), '--text', 'hello\n')).stdout);
    expect(await pipe('hello\n\n')).toBe((await wasmlm('tokenize', testdataPath(STORIES_GGUF), '--text', 'hello\n')).stdout);
  });
});
