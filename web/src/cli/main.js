// The `wasmlm` command line: dispatches to one module per command under
// ./commands, each exporting {summary, usage, run(args, io) -> exit code}.
import { readFile } from 'node:fs/promises';
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
  lines.push('', "Run 'wasmlm <command> --help' for its options; --version prints the version; --debug adds stacks to errors.");
  return lines.join('\n');
}

async function version() {
  const pkg = JSON.parse(await readFile(new URL('../../../package.json', import.meta.url), 'utf8'));
  return pkg.version;
}

/** Runs the CLI; returns the exit code (0 ok, 1 failure, 2 bad usage). */
export async function main(argv, io = { stdout: process.stdout, stderr: process.stderr }) {
  const debug = argv.includes('--debug');
  const [name, ...args] = argv.filter((a) => a !== '--debug');
  try {
    if (name === '--version' || name === '-v') {
      io.stdout.write(`wasmlm ${await version()}\n`);
      return 0;
    }
    if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
      (name === undefined ? io.stderr : io.stdout).write(`${await helpText()}\n`);
      return name === undefined ? 2 : 0;
    }
    const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : null;
    if (!load) throw new UsageError(`unknown command '${name}'`);
    return await (await load()).run(args, io);
  } catch (error) {
    return report(error, io.stderr, { command: Object.hasOwn(COMMANDS, name) ? name : null, debug });
  } finally {
    await releaseWasmModules();
  }
}

// The library's option names where its messages name them, as this CLI spells them.
const CLI_OPTION_NAMES = {
  contextLength: '--ctx', kvCache: '--kv', maxTokens: '--n', temperature: '--temp', topK: '--top-k', topP: '--top-p',
  minP: '--min-p', repeatPenalty: '--repeat-penalty', presencePenalty: '--presence-penalty',
  frequencyPenalty: '--frequency-penalty', penaltyLastN: '--penalty-last-n', ignoreEos: '--ignore-eos',
};
const OPTION_NAME = new RegExp(`\\b(${Object.keys(CLI_OPTION_NAMES).join('|')})\\b`, 'g');

const oneLine = (text) => String(text).replace(/\s+/g, ' ').trim();

/** node:util parseArgs's errors, shortened to what was wrong. */
function argsMessage(error) {
  const option = /'([^' ]+)/.exec(error.message)?.[1];
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option '${option}'`;
  if (error.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return `unexpected argument '${option}'`;
  if (/ambiguous/.test(error.message)) return `option '${option}' needs a value (a negative one as ${option}=-3)`;
  return oneLine(error.message).split('. ')[0].replace(/^Option/, 'option');
}

/** Every error as one line on stderr (with --debug, its stack after it); the exit code. */
function report(error, stderr, { command, debug }) {
  const help = `see 'wasmlm ${command ? `${command} ` : ''}--help'`;
  let line;
  let code = 1;
  if (error instanceof WasmLMError) {
    const at = error.offset == null ? '' : ` at byte ${error.offset}`;
    line = `${error.code}${at}: ${oneLine(error.detail).replace(OPTION_NAME, (m) => CLI_OPTION_NAMES[m])}`;
  } else if (error instanceof UsageError || error?.code?.startsWith?.('ERR_PARSE_ARGS')) {
    line = `${error instanceof UsageError ? oneLine(error.message) : argsMessage(error)} (${help})`;
    code = 2;
  } else {
    line = `${oneLine(error?.message ?? error)}${debug ? '' : ' (--debug shows where)'}`;
  }
  stderr.write(`wasmlm${command ? ` ${command}` : ''}: ${line}\n`);
  if (debug && error?.stack) stderr.write(`${error.stack}\n`);
  return code;
}
