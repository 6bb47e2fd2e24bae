#!/usr/bin/env bash
# Model load benchmark in headless Chromium (see README.md and run.js --help):
#   bash tests/bench/load/run.sh [--files M-Q4_0,S-Q8_0] [--reps 3]
# Generates the model files into tests/bench/llama/models (or $WASMLM_BENCH_MODELS) when missing.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
if [ ! -d "$root/node_modules/playwright-core" ]; then
  echo "[load] installing the repository's npm packages (playwright-core)" >&2
  (cd "$root" && npm install --no-audit --no-fund --loglevel=error)
fi
if [ ! -f "$root/web/dist/wasmlm-st.wasm" ] || [ ! -f "$root/web/dist/wasmlm-mt.wasm" ]; then
  echo "[load] web/dist is not built: run scripts/build.sh (or npm test) first" >&2
  exit 1
fi
if [ ! -x /usr/bin/chromium ]; then
  echo "[load] /usr/bin/chromium is missing (apt-get install chromium)" >&2
  exit 1
fi
exec node "$here/run.js" "$@"
