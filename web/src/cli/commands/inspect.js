// wasmlm inspect FILE [--json]
import { inspect } from '../../inspect.js';
import { inspectReport } from '../inspect-report.js';
import { toJson } from '../json.js';
import { parseCommandArgs } from '../command-args.js';

export const summary = "Show a model file's format, hyperparameters, tokenizer and tensors";

export const usage = `Usage: wasmlm inspect FILE [--json]

FILE is a path, a file: URL or an http(s) URL (.gguf, rwkv.cpp .bin, GGML/GGJT .bin, PyTorch .pth/.pt),
or a Meta LLaMA checkpoint folder (params.json + consolidated.NN.pth).

Options:
  --json    print the full result as JSON (typed arrays as arrays, 64-bit integers as strings)
  -h, --help`;

export async function run(args, { stdout }) {
  const parsed = parseCommandArgs(args, { usage, positionals: 1, expected: 'inspect takes exactly one FILE' }, stdout);
  if (!parsed) return 0;
  const [file] = parsed.positionals;
  const result = await inspect(file);
  stdout.write(parsed.values.json ? `${toJson(result)}\n` : inspectReport(result, { name: file }));
  return 0;
}
