#!/usr/bin/env bash
# Builds the native core + tests and both wasm variants (single-threaded and
# pthreads) into web/dist. Incremental: re-running after no change is quick.
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs   # Debian's emcc needs its acorn at -O2+
jobs=${WASMLM_JOBS:-2}

if [[ ! -f build-native/build.ninja ]]; then
  cmake -S . -B build-native -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build build-native -j"$jobs"

if [[ ! -f build-wasm/build.ninja ]]; then
  emcmake cmake -S . -B build-wasm -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node >/dev/null
fi
cmake --build build-wasm -j"$jobs"
# The pthread worker script is CommonJS; the glue is ES modules (.mjs).
echo '{ "type": "commonjs" }' > web/dist/package.json
# Chat templates: the Jinja library as a plain ES module for browsers without a bundler.
mkdir -p web/dist/vendor
cp node_modules/@huggingface/jinja/dist/index.js web/dist/vendor/jinja.mjs
