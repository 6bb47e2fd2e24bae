// Tokenization in wasm: `wasmlm tokenize --cases` reproduces llama.cpp's
// test-tokenizer-0 .out files, and `wasmlm run --prompt` tokenizes, runs and
// detokenizes stories260K to llama.cpp's greedy text.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import { openTokenizer } from '../../web/src/index.js';
import { describeWithTestdata, REPO_ROOT, STORIES_GGUF, testdataPath } from './helpers/testdata.js';

const run = promisify(execFile);
const VOCAB_DIR = 'tokenizers/llamacpp-vocab';

// Vocabularies with a .gguf, .inp and .out (bert-bge is WordPiece: not ours).
const vocabs = () => fs.readdirSync(testdataPath(VOCAB_DIR))
  .filter((f) => f.endsWith('.gguf') && !f.includes('bert-bge'))
  .filter((f) => fs.existsSync(testdataPath(`${VOCAB_DIR}/${f}.out`)));

describeWithTestdata('tokenizing in wasm', () => {
  test('every vocabulary with llama.cpp vectors reproduces its .out file exactly', async () => {
    const files = vocabs();
    expect(files.length).toBeGreaterThanOrEqual(3);
    for (const f of files) {
      const { stdout } = await run('node', ['web/bin/wasmlm.js', 'tokenize', testdataPath(`${VOCAB_DIR}/${f}`), '--cases',
        testdataPath(`${VOCAB_DIR}/${f}.inp`)], { cwd: REPO_ROOT, maxBuffer: 16 << 20 });
      expect(stdout).toBe(fs.readFileSync(testdataPath(`${VOCAB_DIR}/${f}.out`), 'utf8'));
    }
  }, 60000);

  test('openTokenizer() round-trips text and honours BOS and special-token options', async () => {
    const t = await openTokenizer(testdataPath(STORIES_GGUF));
    try {
      expect(t.encode('Once upon a time')).toEqual([1, 403, 407, 261, 378]);
      expect(t.encode('Once upon a time', { addBos: false })).toEqual([403, 407, 261, 378]);
      expect(t.decode(t.encode('Lily, a girl, ran: "hi!"'))).toBe('Lily, a girl, ran: "hi!"');
      expect(() => t.decode([100000])).toThrow(expect.objectContaining({ code: 'BAD_OPTION' }));
    } finally {
      t.dispose();
    }
  });

  test('wasmlm run --prompt gives llama.cpp\'s greedy text', async () => {
    const reference = JSON.parse(fs.readFileSync(testdataPath('llama/stories260K/reference/reference-outputs.json'), 'utf8'))
      .find((r) => r.file === 'stories260K.gguf').result;
    const { stdout } = await run('node', ['web/bin/wasmlm.js', 'run', testdataPath(STORIES_GGUF), '--prompt', reference.prompt,
      '--n', '32', '--json'], { cwd: REPO_ROOT });
    const result = JSON.parse(stdout);
    expect(result.prompt_ids).toEqual(reference.prompt_ids);
    expect(result.ids).toEqual(reference.greedy_ids);
    expect(result.text).toBe(reference.greedy_text);
  }, 60000);
});
