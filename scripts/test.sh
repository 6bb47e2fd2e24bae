#!/usr/bin/env bash
# Runs every test: native GoogleTest and the fuzz targets' committed findings
# (plain and ASan+UBSan builds) through ctest, every fuzz target for a bounded
# time, the wasm kernel suite under Node, then Jest (the JS package, CLI, and
# headless Chromium tests).
# Ends with one summary line "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
jobs=${WASMLM_JOBS:-2}
log=$(mktemp -d)
status=0

run() { # run NAME COMMAND...: tee output to a log, remember failure
  local name=$1; shift
  echo "=== $name"
  "$@" 2>&1 | tee "$log/$name.log"
  local rc=${PIPESTATUS[0]}
  if ((rc != 0)); then echo "=== $name FAILED (exit $rc)"; status=1; fi
}

# The decoder test models (random weights, every architecture; seconds),
# which the native, wasm and Jest suites compare with llama.cpp's outputs,
# the test data's synth-kq model in MXFP4 (which it lacks), and the GGUF of
# the GGJT TinyLLama-v0 that llama.cpp's reference in tests/reference/legacy ran.
if [[ -d ../shared/testdata ]]; then
  node tests/models/decoder-models.js >/dev/null || status=1
  node tests/reference/legacy/ggjt-to-gguf.js >/dev/null || status=1
  node tests/models/synth-kq-mxfp4.js >/dev/null || status=1
fi

run ctest-native ctest --test-dir build-native --output-on-failure -j"$jobs"

if [[ ! -f build-asan/build.ninja ]]; then
  cmake -S . -B build-asan -G Ninja -DWASMLM_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
if cmake --build build-asan -j"$jobs" >"$log/build-asan.log" 2>&1; then
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    run ctest-asan ctest --test-dir build-asan --output-on-failure -j"$jobs"
else
  cat "$log/build-asan.log"; echo "=== build-asan FAILED"; status=1
fi

# Every parser of outside bytes under libFuzzer with ASan+UBSan, each for a
# bounded time (scripts/fuzz.sh); any finding fails. Needs clang's libFuzzer.
if command -v clang++ >/dev/null && compgen -G '/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a' >/dev/null; then
  run fuzz bash scripts/fuzz.sh all "${WASMLM_FUZZ_SECONDS:-20}"
elif [[ ${CI:-} == true ]]; then
  echo "=== fuzz FAILED: clang's libFuzzer is missing (scripts/setup.sh installs it)"; status=1
else
  echo "=== fuzz skipped: clang's libFuzzer is missing (scripts/setup.sh installs it)"
fi

# Kernels in wasm under Node: SIMD-128 against the scalar reference.
run ctest-wasm ctest --test-dir build-wasm --output-on-failure

run jest node --experimental-vm-modules node_modules/jest/bin/jest.js --ci

# One closing line over all runners.
passed=0; failed=0
for f in "$log"/ctest-*.log; do
  [[ -f $f ]] || continue
  line=$(grep -E "tests passed, [0-9]+ tests failed out of" "$f" | tail -1)
  if [[ $line =~ ([0-9]+)\ tests\ failed\ out\ of\ ([0-9]+) ]]; then
    failed=$((failed + BASH_REMATCH[1])); passed=$((passed + BASH_REMATCH[2] - BASH_REMATCH[1]))
  fi
done
if [[ -f $log/fuzz.log ]]; then  # one test per fuzz target
  passed=$((passed + $(grep -cE '^fuzz_[a-z0-9_]+: passed' "$log/fuzz.log")))
  failed=$((failed + $(grep -cE '^fuzz_[a-z0-9_]+: FAILED' "$log/fuzz.log")))
fi
if [[ -f $log/jest.log ]]; then
  line=$(grep -E "^Tests:" "$log/jest.log" | tail -1)
  [[ $line =~ ([0-9]+)\ failed ]] && failed=$((failed + BASH_REMATCH[1]))
  [[ $line =~ ([0-9]+)\ passed ]] && passed=$((passed + BASH_REMATCH[1]))
fi
if ((status != 0 && failed == 0)); then failed=1; fi
echo
echo "wasmlm: $passed passed, $failed failed"
exit $status
