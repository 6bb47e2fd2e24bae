#!/usr/bin/env bash
# Prints the kernel benchmark table (see bench_kernels.cpp). Builds first.
#   bash tests/bench/kernels/run.sh [--relaxed | --chromium] [TYPE ...]
#   bash tests/bench/kernels/run.sh [--relaxed | --chromium] --matmul TYPE ROWS COLS TOKENS [THREADS]
#   bash tests/bench/kernels/run.sh [--relaxed | --chromium] --attention HEAD_DIM SLOTS ROWS [F16|F32 [cache]]
# --relaxed: the relaxed-SIMD copy of the benchmark (the kernels Chromium
# runs), under Node with --experimental-wasm-relaxed-simd.
# --chromium: that copy in headless Chromium, whose newer V8 is what users
# run (it compiles some kernels quite differently from Node 20's).
set -euo pipefail
cd "$(dirname "$0")/../../.."
bash scripts/build.sh >/dev/null
case ${1:-} in
  --relaxed) shift; node --experimental-wasm-relaxed-simd build-wasm/relaxed/wasmlm_bench_kernels.js "$@" ;;
  --chromium) shift; node tests/bench/kernels/chromium.js "$@" ;;
  *) node build-wasm/wasmlm_bench_kernels.js "$@" ;;   # optional: type names to run
esac
