// Recognizes a Meta LLaMA checkpoint among what the caller passed: a folder
// (a Node path), or its files (paths, URLs or Files, e.g. dropped from a
// folder) among which is a params.json. Returns its parts by role.
import { WasmLMError } from '../errors.js';
import { openByteSource } from '../sources/byte-source.js';
import { readWhole } from '../sources/read-whole.js';
import { isNode } from '../wasm/environment.js';

const SHARD = /^consolidated\.(\d+)\.pth$/;
const PTH = /\.(pth|pt)$/i;
export const PTH_RUNS_AS = 'A PyTorch checkpoint runs as a Meta LLaMA checkpoint folder (params.json, '
  + 'consolidated.00.pth (.01, ...), tokenizer.model): give the folder or all its files';

/** The file name of a path, URL or File (null for bytes and streams). */
export function fileNameOf(x) {
  if (typeof x === 'string' || Object.prototype.toString.call(x) === '[object URL]') {
    return String(x).split(/[?#]/)[0].split(/[\\/]/).pop();
  }
  return typeof x?.name === 'string' ? x.name.split(/[\\/]/).pop() : null;
}

/**
 * @param {unknown} input
 * @returns {Promise<{params: unknown, shards: unknown[], tokenizer: unknown|null, origin: string}|null>}
 */
export async function findCheckpoint(input) {
  if (Array.isArray(input)) {
    const names = input.map(fileNameOf);
    if (names.includes('params.json') || names.some((name) => PTH.test(name ?? ''))) return checkpointOf(input, 'the files given');
    return null;
  }
  if (isNode && typeof input === 'string' && !/^[a-z][a-z0-9+.-]+:/i.test(input)) {
    const { stat, readdir } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const info = await stat(input).catch(() => null);
    if (!info?.isDirectory()) return null;
    return checkpointOf((await readdir(input)).map((name) => join(input, name)), input);
  }
  return null;
}

/** A lone .pth/.pt (a path, URL or File): it runs only as part of its checkpoint folder. */
export function isPthName(input) {
  return !Array.isArray(input) && PTH.test(fileNameOf(input) ?? '');
}

/** A checkpoint's params.json as text (a few hundred bytes; refused past 1 MiB). */
export async function readParams(input, options) {
  const source = await openByteSource(input, options);
  try {
    const bytes = await readWhole(source, { limit: 1024 * 1024, what: 'params.json', signal: options.signal });
    return new TextDecoder().decode(bytes);
  } finally {
    await source.close?.();
  }
}

function checkpointOf(files, folder = 'the checkpoint') {
  const byName = new Map(files.map((x) => [fileNameOf(x), x]));
  const params = byName.get('params.json');
  const numbered = files.map((x) => ({ x, m: SHARD.exec(fileNameOf(x) ?? '') })).filter(({ m }) => m)
    .sort((a, b) => Number(a.m[1]) - Number(b.m[1]));
  if (!params) {
    throw new WasmLMError('BAD_FORMAT', `${folder}: no params.json. ${PTH_RUNS_AS}`);
  }
  if (numbered.length === 0) throw new WasmLMError('BAD_FORMAT', `${folder} has params.json but no consolidated.00.pth`);
  numbered.forEach(({ m }, k) => {
    if (Number(m[1]) !== k) {
      throw new WasmLMError('BAD_FORMAT', `consolidated.${String(k).padStart(2, '0')}.pth is missing: `
        + `the shards are ${numbered.map(({ m: n }) => n[0]).join(', ')}`);
    }
  });
  const first = numbered[0].x;
  const origin = typeof first === 'string' && /^https?:/i.test(first) ? 'url' : 'file';
  return { params, shards: numbered.map(({ x }) => x), tokenizer: byName.get('tokenizer.model') ?? null, origin };
}
