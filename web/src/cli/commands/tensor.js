// wasmlm tensor FILE NAME [--json]
import { parseArgs } from 'node:util';
import { tensorStats } from '../../tensor-stats.js';
import { toJson } from '../json.js';
import { UsageError } from '../usage-error.js';

export const summary = 'Dequantize one tensor and print its count, sum, sum of squares and first values';

export const usage = `Usage: wasmlm tensor FILE NAME [--json]

Dequantizes tensor NAME of FILE (GGUF, rwkv.cpp .bin, GGJT) in wasm and prints
{name, type, shape, n, sum, sumsq, min, max, first32}; sums are in double precision.

Options:
  --json    print the result as JSON
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
  if (positionals.length !== 2) throw new UsageError('tensor takes a FILE and a tensor NAME', usage);
  const [file, name] = positionals;
  const r = await tensorStats(file, name);
  if (values.json) {
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
