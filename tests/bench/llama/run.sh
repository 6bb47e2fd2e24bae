#!/usr/bin/env bash
# wasmlm vs wllama vs native llama.cpp (see run.js for the options), e.g.
#   bash tests/bench/llama/run.sh --sizes S --types Q8_0,Q4_0 --threads 1
# Installs the anchors (wllama, node-llama-cpp) into tests/bench/llama/node_modules
# on first run, and generates the model files into tests/bench/llama/models
# (or $WASMLM_BENCH_MODELS) when missing.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"

if [ ! -d "$here/node_modules/node-llama-cpp" ] || [ ! -d "$here/node_modules/@wllama/wllama" ] \
   || [ ! -d "$here/node_modules/@wllama/wllama-compat" ] || [ ! -d "$here/node_modules/@node-llama-cpp/linux-x64" ]; then
  echo "[bench] installing the benchmark's npm packages into $here/node_modules" >&2
  # --omit=optional: node-llama-cpp's optional CUDA/Vulkan/other-OS binaries (hundreds of MB);
  # the CPU linux-x64 one is a direct dependency.
  (cd "$here" && npm install --omit=optional --no-audit --no-fund --ignore-scripts --loglevel=error)
fi
if [ ! -d "$root/node_modules/playwright-core" ]; then
  echo "[bench] installing the repository's npm packages (playwright-core)" >&2
  (cd "$root" && npm install --no-audit --no-fund --loglevel=error)
fi
if [ ! -f "$root/web/dist/wasmlm-st.wasm" ] || [ ! -f "$root/web/dist/wasmlm-mt.wasm" ]; then
  echo "[bench] building wasmlm (scripts/build.sh)" >&2
  (cd "$root" && bash scripts/setup.sh && bash scripts/build.sh)
fi
exec node "$here/run.js" "$@"
