// The `wasmlm` command line: dispatches to one module per command under
// ./commands, each exporting {summary, usage, run(args, io) -> exit code}.
import { WasmLMError } from '../errors.js';
import { releaseWasmModules } from '../wasm/load-module.js';
import { UsageError } from './usage-error.js';

const COMMANDS = {
  inspect: () => import('./commands/inspect.js'),
  tensor: () => import('./commands/tensor.js'),
  run: () => import('./commands/run.js'),
  tokenize: () => import('./commands/tokenize.js'),
};

async function helpText() {
  const lines = ['Usage: wasmlm <command> [options]', '', 'Commands:'];
  for (const [name, load] of Object.entries(COMMANDS)) lines.push(`  ${name.padEnd(10)}${(await load()).summary}`);
  lines.push('', "Run 'wasmlm <command> --help' for its options.");
  return lines.join('\n');
}

/** Runs the CLI; returns the exit code (0 ok, 1 failure, 2 bad usage). */
export async function main(argv, io = { stdout: process.stdout, stderr: process.stderr }) {
  const [name, ...args] = argv;
  try {
    if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
      (name === undefined ? io.stderr : io.stdout).write(`${await helpText()}\n`);
      return name === undefined ? 2 : 0;
    }
    const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : null;
    if (!load) throw new UsageError(`unknown command '${name}'`, await helpText());
    return await (await load()).run(args, io);
  } catch (error) {
    return report(error, io.stderr);
  } finally {
    await releaseWasmModules();
  }
}

function report(error, stderr) {
  if (error instanceof WasmLMError) {
    const at = error.offset == null ? '' : ` at byte ${error.offset}`;
    stderr.write(`wasmlm: ${error.code}${at}: ${error.detail}\n`);
    return 1;
  }
  if (error instanceof UsageError || error?.code?.startsWith?.('ERR_PARSE_ARGS')) {
    stderr.write(`wasmlm: ${error.message}\n${error.usage ? `\n${error.usage}\n` : ''}`);
    return 2;
  }
  stderr.write(`wasmlm: ${error?.stack ?? error}\n`);
  return 1;
}
