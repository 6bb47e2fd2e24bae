// Native llama.cpp through node-llama-cpp (installed for the benchmarks in
// tests/bench/llama/node_modules; prebuilt CPU binaries, nothing downloaded),
// for the scripts that record reference tokenizations. Only those recording
// scripts use it: the tests read what they committed.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const BENCH = path.resolve(fileURLToPath(new URL('../../bench/llama', import.meta.url)));

export async function openLlama() {
  const url = pathToFileURL(path.join(BENCH, 'node_modules/node-llama-cpp/dist/index.js')).href;
  const { getLlama, LlamaLogLevel } = await import(url);
  return getLlama({
    gpu: false, build: 'never', usePrebuiltBinaries: true, skipDownload: true, logLevel: LlamaLogLevel.error,
  });
}

/** A vocabulary-only model: tokenize(text, parseSpecial) as llama.cpp's test-tokenizer-0 (no BOS). */
export async function loadVocab(llama, modelPath) {
  const model = await llama.loadModel({ modelPath, vocabOnly: true });
  return {
    model,
    tokenize: (text, parseSpecial = false) => Array.from(model.tokenize(text, parseSpecial)),
    // llama.cpp's end-of-generation set (llama_vocab_is_eog), over every id.
    eogIds() {
      const ids = [];
      const n = model.fileInfo.metadata.tokenizer.ggml.tokens.length;
      for (let id = 0; id < n; ++id) if (model.isEogToken(id)) ids.push(id);
      return ids;
    },
  };
}
