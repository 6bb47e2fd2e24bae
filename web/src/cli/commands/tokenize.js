// wasmlm tokenize FILE [--text T | stdin] [--bos] [--special] [--json] | --cases FILE.inp
// FILE: a GGUF model/vocabulary, SentencePiece .model, tokenizer.json or tiktoken file.
import fs from 'node:fs/promises';
import { openTokenizer } from '../../tokenizer.js';
import { parseCommandArgs } from '../command-args.js';
import { UsageError } from '../usage-error.js';
import { toJson } from '../json.js';

export const summary = "Turn text into token ids with a model's or tokenizer file's tokenizer";

export const usage = `Usage: wasmlm tokenize FILE [--text T | --raw] [--bos] [--special] [--json]
       wasmlm tokenize FILE --cases FILE.inp

FILE is a GGUF model or vocabulary file, a SentencePiece tokenizer.model, a
Hugging Face tokenizer.json or a tiktoken rank file (LLaMA 3's split regex;
LLaMA 3's 256 special tokens follow the ranks unless --tiktoken-specials says
otherwise). Without --text the text is read from stdin, less one trailing
newline ("echo hello |" tokenizes "hello"); --raw keeps it.
--cases tokenizes every case of a llama.cpp test-tokenizer-0 .inp file (cases
separated by "\\n__ggml_vocab_test__\\n", no BOS, no special tokens) and prints
one line of space-separated ids per case, as in its .out file.

Options:
  --text T     the text to tokenize
  --raw        stdin as it is, its trailing newline included
  --bos        prepend BOS (default: no)
  --special    parse special tokens such as <|begin_of_text|> in the text
  --cases F    tokenize the cases of a .inp file
  --json       print {ids, tokens} as JSON
  --tiktoken-specials N|none
               tiktoken files: LLaMA 3's special tokens from id N (torchtune: 128000), or none
  -h, --help`;

const CASE_SEPARATOR = '\n__ggml_vocab_test__\n';

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

function tiktokenSpecials(value) {
  if (value === undefined) return undefined;
  if (value === 'none') return false;
  if (/^\d+$/.test(value)) return Number(value);
  throw new UsageError(`--tiktoken-specials takes a first id or "none", not "${value}"`);
}

export async function run(args, { stdout }) {
  const parsed = parseCommandArgs(args, {
    usage, positionals: 1, expected: 'tokenize takes exactly one FILE',
    options: {
      text: { type: 'string' }, bos: { type: 'boolean' }, special: { type: 'boolean' }, cases: { type: 'string' },
      'tiktoken-specials': { type: 'string' }, raw: { type: 'boolean' },
    },
  }, stdout);
  if (!parsed) return 0;
  const { values, positionals: [file] } = parsed;
  const tokenizer = await openTokenizer(file, { tiktokenSpecialTokens: tiktokenSpecials(values['tiktoken-specials']) });
  try {
    if (values.cases) {
      // Every case ends with the separator, so the last piece is empty.
      const cases = (await fs.readFile(values.cases, 'utf8')).split(CASE_SEPARATOR);
      if (cases.at(-1) === '') cases.pop();
      // The .out format: each id preceded by a space.
      for (const text of cases) stdout.write(`${tokenizer.encode(text, { addBos: false }).map((id) => ` ${id}`).join('')}\n`);
      return 0;
    }
    let text = values.text;
    if (text === undefined) {
      text = await readStdin();
      if (!values.raw) text = text.replace(/\r?\n$/, '');
    }
    const ids = tokenizer.encode(text, { addBos: Boolean(values.bos), parseSpecial: Boolean(values.special) });
    if (values.json) stdout.write(`${toJson({ ids, tokens: ids.map((id) => tokenizer.decode([id], { renderSpecial: true })) })}\n`);
    else stdout.write(`${ids.join(' ')}\n`);
    return 0;
  } finally {
    tokenizer.dispose();
  }
}
