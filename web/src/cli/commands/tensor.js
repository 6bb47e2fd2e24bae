// wasmlm tensor FILE NAME [--json]
import { tensorStats } from '../../tensor-stats.js';
import { toJson } from '../json.js';
import { parseCommandArgs } from '../command-args.js';

export const summary = 'Dequantize one tensor and print its count, sum, sum of squares and first values';

export const usage = `Usage: wasmlm tensor FILE NAME [--json]

Dequantizes tensor NAME of FILE (GGUF, rwkv.cpp .bin, GGJT) in wasm and prints
{name, type, shape, n, sum, sumsq, min, max, first32}; sums are in double precision.

Options:
  --json    print the result as JSON
  -h, --help`;

export async function run(args, { stdout }) {
  const parsed = parseCommandArgs(args, { usage, positionals: 2, expected: 'tensor takes a FILE and a tensor NAME' }, stdout);
  if (!parsed) return 0;
  const [file, name] = parsed.positionals;
  const r = await tensorStats(file, name);
  if (parsed.values.json) {
    stdout.write(`${toJson(r)}\n`);
    return 0;
  }
  stdout.write(
    [
      `tensor  ${r.name}`,
      `type    ${r.type}, shape [${r.shape.join(', ')}]`,
      `n       ${r.n}`,
      `sum     ${r.sum}`,
      `sumsq   ${r.sumsq}`,
      `range   ${r.min} .. ${r.max}`,
      `first   ${r.first32.map((v) => v.toPrecision(6)).join(' ')}`,
      '',
    ].join('\n'),
  );
  return 0;
}
