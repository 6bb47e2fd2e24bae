// wasmlm run FILE (--prompt T | --prompt-ids 1,2,3) [--n 32] [--temp 0 --top-k ... --seed ...] [--threads N] [--ctx N] [--quantize TYPE] [--logits OUT.f32] [--json]
import fs from 'node:fs/promises';
import { openModel } from '../../model/open-model.js';
import { parseCommandArgs } from '../command-args.js';
import { toJson } from '../json.js';
import { UsageError } from '../usage-error.js';

export const summary = 'Run a model on prompt token ids and continue greedily';

export const usage = `Usage: wasmlm run FILE (--prompt T | --prompt-ids 1,2,3) [--n 32] [--temp 0 --top-k ... --seed ...]
                  [--stop S]... [--ignore-eos] [--threads N] [--ctx N] [--quantize TYPE] [--tokenizer FILE]
                  [--logits OUT.f32] [--json]

Evaluates the prompt (a LLaMA-family GGUF, or an RWKV v4-v7 rwkv.cpp .bin)
and generates up to --n tokens:
greedily with --temp 0 (the default), else with llama.cpp's sampler chain.
Generation ends early at the model's end-of-generation token (EOS, EOT...)
or a --stop string. --logits writes the float32 logits after the last prompt
token (n_vocab little-endian floats).

Options:
  --prompt T          the prompt text (tokenized with the model's vocabulary; BOS as the model says)
  --prompt-ids LIST   comma-separated token ids, BOS included if wanted
  --n N               tokens to generate (default 32)
  --temp T            temperature; 0 = greedy (default 0)
  --top-k K --top-p P --min-p P       filters (defaults 40, 0.95, 0.05)
  --repeat-penalty R --presence-penalty P --frequency-penalty F --penalty-last-n N
  --seed S            random seed (default: random)
  --stop S            stop before this text (repeatable; not printed)
  --ignore-eos        go on past end-of-generation tokens
  --threads N         threads (pthreads build when > 1; default 1)
  --kv f16|f32|q8_0   KV cache type (default f16, as llama.cpp; q8_0: about half its memory)
  --ctx N             context length (default: prompt + n; RWKV has no limit)
  --quantize TYPE     quantize float matrices on load (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, ...)
  --tokenizer FILE    a tokenizer file for a model without a vocabulary (RWKV World .txt, tokenizer.json)
  --logits FILE       write the logits after the prompt
  --json              print {prompt_ids, ids, text, timings} as JSON
  -h, --help`;

const integer = (name, text, min) => {
  const v = Number(text);
  if (!Number.isInteger(v) || v < min) throw new UsageError(`${name} expects an integer >= ${min}`);
  return v;
};

function samplingOptions(values) {
  const number = (name) => {
    if (values[name] === undefined) return undefined;
    const v = Number(values[name]);
    if (!Number.isFinite(v)) throw new UsageError(`--${name} expects a number`);
    return v;
  };
  return {
    temperature: number('temp') ?? 0, topK: number('top-k'), topP: number('top-p'), minP: number('min-p'),
    repeatPenalty: number('repeat-penalty'), presencePenalty: number('presence-penalty'),
    frequencyPenalty: number('frequency-penalty'), penaltyLastN: number('penalty-last-n'), seed: number('seed'),
  };
}

function hasTokenizer(model) {
  try {
    return model.tokenizer !== null;
  } catch {
    return false;
  }
}

export async function run(args, { stdout }) {
  const parsed = parseCommandArgs(args, {
    usage, positionals: 1, expected: 'run takes exactly one FILE',
    options: { temp: { type: 'string' }, 'top-k': { type: 'string' }, 'top-p': { type: 'string' }, 'min-p': { type: 'string' },
      'repeat-penalty': { type: 'string' }, 'presence-penalty': { type: 'string' }, 'frequency-penalty': { type: 'string' },
      'penalty-last-n': { type: 'string' }, seed: { type: 'string' }, stop: { type: 'string', multiple: true }, 'ignore-eos': { type: 'boolean' }, kv: { type: 'string' }, prompt: { type: 'string' }, 'prompt-ids': { type: 'string' }, n: { type: 'string' }, threads: { type: 'string' }, ctx: { type: 'string' }, logits: { type: 'string' }, quantize: { type: 'string' }, tokenizer: { type: 'string' } },
  }, stdout);
  if (!parsed) return 0;
  const { values, positionals: [file] } = parsed;
  if ((values.prompt === undefined) === (values['prompt-ids'] === undefined))
    throw new UsageError('run needs exactly one of --prompt and --prompt-ids');
  const n = integer('--n', values.n ?? '32', 0);
  const threads = integer('--threads', values.threads ?? '1', 1);

  const t0 = performance.now();
  // The context is sized once the prompt length is known; the weights load first.
  const kvCache = values.kv ?? 'f16';
  if (!['f16', 'f32', 'q8_0'].includes(kvCache)) throw new UsageError('--kv expects f16, f32 or q8_0');
  const model = await openModel(file, {
    threads, kvCache, contextLength: integer('--ctx', values.ctx ?? '2048', 1), quantize: values.quantize, tokenizer: values.tokenizer,
  });
  try {
    const promptIds = values.prompt !== undefined
      ? model.tokenizer.encode(values.prompt)
      : values['prompt-ids'].split(',').map((s) => integer('--prompt-ids', s.trim(), 0));
    const t1 = performance.now();
    if (values.logits) {
      const logits = model.eval(promptIds);
      await fs.writeFile(values.logits, new Uint8Array(logits.buffer, logits.byteOffset, logits.byteLength));
    }
    const result = n === 0
      ? { tokens: [], finishReason: 'length', timings: {} }
      : await model.complete(promptIds, {
        ...samplingOptions(values), maxTokens: n, stop: values.stop ?? [], ignoreEos: values['ignore-eos'] ?? false,
      });
    const ids = result.tokens;
    const timings = {
      loadMs: t1 - t0, ...result.timings, threads: model.threads,
    };
    const text = values.prompt !== undefined || hasTokenizer(model) ? result.text : null;
    const out = { prompt_ids: promptIds, ids, text, finish_reason: result.finishReason, timings };
    stdout.write(values.json ? `${toJson(out)}\n` : `${text ?? ids.join(' ')}\n`);
    return 0;
  } finally {
    model.dispose();
  }
}
