// wasmlm inspect FILE [--json]
import { parseArgs } from 'node:util';
import { inspect } from '../../inspect.js';
import { inspectReport } from '../inspect-report.js';
import { toJson } from '../json.js';
import { UsageError } from '../usage-error.js';

export const summary = "Show a model file's format, hyperparameters, tokenizer and tensors";

export const usage = `Usage: wasmlm inspect FILE [--json]

FILE is a path, a file: URL or an http(s) URL (.gguf, rwkv.cpp .bin, GGML/GGJT .bin).

Options:
  --json    print the full result as JSON (typed arrays as arrays, 64-bit integers as strings)
  -h, --help`;

export async function run(args, { stdout }) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    stdout.write(`${usage}\n`);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError('inspect takes exactly one FILE', usage);
  const [file] = positionals;
  const result = await inspect(file);
  stdout.write(values.json ? `${toJson(result)}\n` : inspectReport(result, { name: file }));
  return 0;
}
