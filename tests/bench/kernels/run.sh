#!/usr/bin/env bash
# Prints the kernel benchmark table (see bench_kernels.cpp). Builds first.
set -euo pipefail
cd "$(dirname "$0")/../../.."
bash scripts/build.sh >/dev/null
node build-wasm/wasmlm_bench_kernels.js "$@"   # optional: type names to run
