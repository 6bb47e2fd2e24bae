#!/usr/bin/env bash
# Prints the kernel benchmark table (see bench_kernels.cpp). Builds first.
#   bash tests/bench/kernels/run.sh [--relaxed] [TYPE ...]
# --relaxed: the relaxed-SIMD copy of the benchmark (the kernels Chromium
# runs), under Node with --experimental-wasm-relaxed-simd.
set -euo pipefail
cd "$(dirname "$0")/../../.."
bash scripts/build.sh >/dev/null
if [[ ${1:-} == --relaxed ]]; then
  shift
  node --experimental-wasm-relaxed-simd build-wasm/relaxed/wasmlm_bench_kernels.js "$@"
else
  node build-wasm/wasmlm_bench_kernels.js "$@"   # optional: type names to run
fi
