// Where the shared test files are (../shared/testdata; WASMLM_TESTDATA
// overrides), and how tests behave without them: fail in CI (CI=true), skip
// with a visible message elsewhere.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(fileURLToPath(new URL('../../..', import.meta.url)));
export const TESTDATA = path.resolve(process.env.WASMLM_TESTDATA ?? path.join(REPO_ROOT, '..', 'shared', 'testdata'));
export const HAVE_TESTDATA = fs.existsSync(TESTDATA);

export const STORIES_GGUF = 'llama/stories260K/stories260K.gguf';
export const STORIES_CRABML_V1 = 'llama/stories260K/tinyllamas-stories-260k-f32.crabml.gguf';
export const STORIES_LLAMA4J_V2 = 'llama/stories260K/tinyllamas-stories-260k-q8_0.llama4j.gguf';
export const TINYLLAMA_GGJT = 'legacy/TinyLLama-v0.ggmlv3.q4_0.bin';
export const RWKV_5V2_FP32 = 'rwkv/tiny-rwkv-5v2-730K-FP32.bin';

export const testdataPath = (relative) => path.join(TESTDATA, relative);

/** describe() that needs ../shared/testdata. */
export function describeWithTestdata(name, body) {
  if (HAVE_TESTDATA) return describe(name, body);
  if (process.env.CI === 'true') {
    return describe(name, () => {
      test('has the shared test data', () => {
        throw new Error(`the test data is missing: ${TESTDATA}`);
      });
    });
  }
  console.warn(`SKIPPED "${name}": no test data at ${TESTDATA}`);
  return describe.skip(name, () => test.skip('needs the shared test data', () => {}));
}

/** Every model file the parser must read: all GGUF, the rwkv.cpp files, the GGJT file. */
export function allModelFiles() {
  if (!HAVE_TESTDATA) return [];
  const files = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.gguf') || /^tiny-rwkv-.*\.bin$/.test(entry.name)) files.push(full);
    }
  };
  walk(TESTDATA);
  files.push(testdataPath(TINYLLAMA_GGJT));
  return files.map((f) => path.relative(TESTDATA, f)).sort();
}
