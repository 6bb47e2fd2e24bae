// Native llama.cpp at a chosen x86 level. node-llama-cpp's CPU binary ships
// one ggml CPU backend per x86 level (libggml-cpu-haswell.so: AVX2, ...,
// -sapphirerapids.so: AVX-512 VNNI and AMX) and ggml loads the best one the
// CPU has. On a server CPU with AMX that one multiplies int8 tiles in a
// matrix unit (its weights are repacked for it at load: "AMX model buffer"),
// which no browser code can reach; most users' CPUs have AVX2. So the bench
// also runs native llama.cpp as an AVX2 machine does: a copy of the package
// tree (symbolic links) whose backend directory holds the levels up to
// haswell only, imported with --preserve-symlinks so that node-llama-cpp
// finds that directory.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PACKAGE = '@node-llama-cpp/linux-x64';
// ggml's x86 backend levels, in the order ggml scores them, up to AVX2 + FMA.
export const AVX2_LEVELS = ['x64', 'sse42', 'sandybridge', 'ivybridge', 'piledriver', 'haswell'];

/**
 * The root of a node_modules tree where node-llama-cpp loads no CPU backend
 * above `levels` (created once, under tests/bench/llama/.native-LABEL/).
 * Import node-llama-cpp from `${root}/node_modules/node-llama-cpp/dist/index.js`
 * in a Node started with --preserve-symlinks.
 */
export function nativeTree(label = 'avx2', levels = AVX2_LEVELS) {
  const source = path.join(HERE, 'node_modules');
  const bins = path.join(source, PACKAGE, 'bins', 'linux-x64');
  if (!fs.existsSync(bins)) throw new Error(`${bins} is missing (run tests/bench/llama/run.sh once to install node-llama-cpp)`);
  const root = path.join(HERE, `.native-${label}`);
  const modules = path.join(root, 'node_modules');
  const marker = path.join(root, 'levels.json');
  if (fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === JSON.stringify(levels)) return root;
  fs.rmSync(root, { recursive: true, force: true });
  const link = (from, to) => fs.symlinkSync(from, to);
  fs.mkdirSync(modules, { recursive: true });
  for (const entry of fs.readdirSync(source)) {
    if (entry === '@node-llama-cpp') continue;
    link(path.join(source, entry), path.join(modules, entry));
  }
  const pkgFrom = path.join(source, PACKAGE);
  const pkgTo = path.join(modules, PACKAGE);
  fs.mkdirSync(path.join(pkgTo, 'bins', 'linux-x64'), { recursive: true });
  for (const entry of fs.readdirSync(pkgFrom)) if (entry !== 'bins') link(path.join(pkgFrom, entry), path.join(pkgTo, entry));
  for (const entry of fs.readdirSync(bins)) {
    const level = /^libggml-cpu-(.+)\.so$/.exec(entry)?.[1];
    if (level && !levels.includes(level)) continue;
    link(path.join(bins, entry), path.join(pkgTo, 'bins', 'linux-x64', entry));
  }
  if (!levels.some((l) => fs.existsSync(path.join(pkgTo, 'bins', 'linux-x64', `libggml-cpu-${l}.so`)))) {
    throw new Error(`${bins} has none of the CPU backends ${levels.join(', ')}`);
  }
  fs.writeFileSync(marker, JSON.stringify(levels));
  return root;
}
