// The argument handling every command shares: --help/-h, --json, extra
// options, and an exact number of positional arguments.
import { parseArgs } from 'node:util';
import { UsageError } from './usage-error.js';

/**
 * @returns {{values: object, positionals: string[]} | null} null when --help was printed
 */
export function parseCommandArgs(args, { usage, positionals: count, expected, options = {} }, stdout) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' }, ...options },
  });
  if (values.help) {
    stdout.write(`${usage}\n`);
    return null;
  }
  if (positionals.length !== count) throw new UsageError(expected);
  return { values, positionals };
}
