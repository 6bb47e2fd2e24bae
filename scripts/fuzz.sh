#!/usr/bin/env bash
# Fuzzes every parser of outside bytes with libFuzzer under ASan+UBSan:
#
#   scripts/fuzz.sh [TARGET|all] [SECONDS]     (default: all, 60 s per target)
#
# Builds the targets (tests/fuzz/fuzz_*.cpp) with clang in build-fuzz/, makes
# each one's seed corpus from ../shared/testdata (small files whole, the first
# kilobytes of big ones, shrunk tokenizer files), its generated seeds and its
# committed findings (tests/fuzz/regressions/TARGET/), then runs it for
# SECONDS with one job. A crash, a sanitizer report, an input slower than
# $timeout s or a process above $rss_mb MB (an allocation above $malloc_mb MB)
# is a finding: the script fails naming the input, which goes, once the cause
# is fixed, to tests/fuzz/regressions/TARGET/ (the replay tests run it).
# One line per target: "TARGET: passed, N executions in S s".
# WASMLM_FUZZ_BUILD overrides the build directory, WASMLM_JOBS the build's jobs.
set -uo pipefail
cd "$(dirname "$0")/.."
which=${1:-all}
seconds=${2:-60}
build=${WASMLM_FUZZ_BUILD:-build-fuzz}
testdata=../shared/testdata
timeout=10 rss_mb=2048 malloc_mb=1024
jobs=${WASMLM_JOBS:-2}

targets=()
for src in tests/fuzz/fuzz_*.cpp; do
  name=$(basename "$src" .cpp)
  [[ $which == all || $which == "$name" ]] && targets+=("$name")
done
if ((${#targets[@]} == 0)); then
  echo "fuzz: no target '$which' (tests/fuzz/fuzz_*.cpp)" >&2
  exit 2
fi

if [[ ! -f $build/build.ninja ]]; then
  CXX=clang++ cmake -S . -B "$build" -G Ninja -DWASMLM_FUZZ=ON -DWASMLM_TESTS=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null || exit 1
fi
cmake --build "$build" -j"$jobs" --target "${targets[@]}" >"$build/build.log" 2>&1 || { cat "$build/build.log"; exit 1; }

# --- seeds --------------------------------------------------------------------
# seed_head KB FILE...: each file's first KB kilobytes (all of a smaller one).
# seed_small KB FILE...: each file of at most KB kilobytes.
# seed_join NAME FILE...: the files as one input, between part separators.
# seed_shrink KIND N FILE...: tokenizer files cut to their first N tokens.
seed_name() { local rel=${1#"$testdata"/}; echo "${rel//\//_}"; }
seed_head() {
  local kb=$1 f; shift
  for f in "$@"; do [[ -f $f ]] && head -c $((kb * 1024)) "$f" >"$seeds/$(seed_name "$f")"; done
}
seed_small() {
  local kb=$1 f; shift
  for f in "$@"; do [[ -f $f && $(stat -c %s "$f") -le $((kb * 1024)) ]] && cp "$f" "$seeds/$(seed_name "$f")"; done
}
seed_join() {
  local name=$1 f first=1; shift
  for f in "$@"; do [[ -f $f ]] || return 0; done
  for f in "$@"; do
    ((first)) || printf '%s' '--wasmlm-part--'
    cat "$f"
    first=0
  done >"$seeds/$name"
}
seed_shrink() {
  local kind=$1 n=$2 f; shift 2
  for f in "$@"; do [[ -f $f ]] && python3 tests/fuzz/shrink_seed.py "$kind" "$n" "$f" "$seeds/$(seed_name "$f")"; done
}
seed_prefix() {  # seed_prefix BYTES FILE...: BYTES (printf escapes) before each file
  local bytes=$1 f; shift
  for f in "$@"; do [[ -f $f ]] && { printf "$bytes"; cat "$f"; } >"$seeds/$(seed_name "$f")-$(printf '%s' "$bytes" | tr -dc 0-9)"; done
}

# The seeds of target $1 into $seeds; sets max_len.
make_seeds() {
  local t=$testdata ggufs zips legacy
  ggufs=("$t"/llama/stories260K/*.gguf "$t"/llama/stories260K/derived/*.gguf "$t"/llama/tiny-random/*.gguf
         "$t"/synth-kq/*.gguf "$t"/hostile/*.gguf)
  zips=("$t"/pytorch/burn/*.pt "$t"/pytorch/candle/*.pt* "$t"/pytorch/torchtune/*.pt "$t"/hostile/*.pth
        "$t"/pytorch/meta-stories260K/{bf16,mp2-bf16}/consolidated.*.pth)
  legacy=("$t"/pytorch/burn/*legacy*.pt "$t"/pytorch/meta-stories260K/legacy-f32/consolidated.00.pth)
  max_len=65536
  case $1 in
    fuzz_model_parser)
      seed_head 64 "${ggufs[@]}" "$t"/rwkv/*-Q5_0.bin "$t"/legacy/*.bin "$t"/tokenizers/llamacpp-vocab/old-gguf-v1/*.gguf
      seed_shrink gguf-vocab 300 "$t"/tokenizers/llamacpp-vocab/ggml-vocab-{llama-spm,gpt-2}.gguf ;;
    fuzz_model_build)
      seed_head 64 "${ggufs[@]}" tests/.tmp/decoder-models/*-{F32,Q8_0}.gguf ;;
    fuzz_rwkv_bin)
      max_len=$((1450 * 1024))
      seed_small 1450 "$t"/rwkv/*-Q5_0.bin ;;
    fuzz_ggjt)
      max_len=$((512 * 1024))
      seed_head 512 "$t"/legacy/*.bin ;;
    fuzz_gguf_split | fuzz_load_state) ;;  # generated only
    fuzz_zip_reader)
      seed_small 64 "${zips[@]}" ;;
    fuzz_pickle_machine)
      seed_head 64 "${legacy[@]}"
      local f
      for f in "${zips[@]}"; do  # their data.pkl
        [[ -f $f ]] && python3 -c 'import sys, zipfile
if zipfile.is_zipfile(sys.argv[1]):
    z = zipfile.ZipFile(sys.argv[1])
    open(sys.argv[2], "wb").write(z.read(next(n for n in z.namelist() if n.endswith("/data.pkl"))))' \
          "$f" "$seeds/$(seed_name "$f").pkl"
      done ;;
    fuzz_pth_checkpoint | fuzz_pth_tensor_values)
      max_len=$((640 * 1024))
      seed_small 640 "${zips[@]}" "$t"/pytorch/burn/*.tar "$t"/pytorch/burn/broken.pt
      seed_head 640 "${legacy[@]}" ;;
    fuzz_meta_checkpoint)
      max_len=$((1300 * 1024))
      local d
      for d in "$t"/pytorch/meta-stories260K/*/; do
        [[ -f $d/params.json ]] && seed_join "meta-$(basename "$d")" "$d"/params.json "$d"/consolidated.*.pth
      done
      # torchtune's Meta-layout checkpoint, with the params.json its shapes say.
      printf '{"dim": 32, "n_layers": 2, "n_heads": 4, "vocab_size": 500, "norm_eps": 1e-5}' >"$seeds/.params.json"
      seed_join torchtune-fair "$seeds/.params.json" "$t"/pytorch/torchtune/tiny_fair_checkpoint.pt
      rm -f "$seeds/.params.json" ;;
    fuzz_sentencepiece)
      max_len=$((256 * 1024))
      seed_small 64 "$t"/pytorch/meta-stories260K/bf16/tokenizer.model
      seed_shrink sentencepiece 400 "$t"/tokenizers/torchtune-small/m.model ;;
    fuzz_tiktoken)  # the first byte picks the special tokens (fuzz_tiktoken.cpp)
      seed_prefix '\0\0\0\0\0' "$t"/tokenizers/torchtune-small/tiktoken_small.model
      seed_prefix '\1\0\0\0\0' "$t"/tokenizers/torchtune-small/tiktoken_small.model ;;
    fuzz_tokenizer_json)
      max_len=$((128 * 1024))
      seed_shrink tokenizer-json 600 "$t"/tokenizers/llama3/tokenizer.json "$t"/tokenizers/gpt-neox-20b/20B_tokenizer.json ;;
    fuzz_tokenizer_file)
      max_len=$((128 * 1024))
      seed_shrink gguf-vocab 500 "$t"/tokenizers/llamacpp-vocab/*.gguf "$t"/tokenizers/llamacpp-vocab/old-gguf-v1/*.gguf
      seed_shrink tokenizer-json 600 "$t"/tokenizers/llama3/tokenizer.json
      seed_small 64 "$t"/tokenizers/torchtune-small/tiktoken_small.model "$t"/pytorch/meta-stories260K/bf16/tokenizer.model
      [[ -f $t/tokenizers/rwkv-world/rwkv_vocab_v20230424.txt ]] &&
        head -n 1000 "$t"/tokenizers/rwkv-world/rwkv_vocab_v20230424.txt >"$seeds/rwkv_vocab_1000.txt" ;;
  esac
  # Seeds a target generates itself (LLVMFuzzerInitialize); others just run no input.
  WASMLM_FUZZ_WRITE_SEEDS=$seeds "$build/$1" -runs=0 >/dev/null 2>&1
}

# --- runs ---------------------------------------------------------------------
[[ -d $testdata ]] || echo "fuzz: $testdata is missing: seeds are the generated ones and the findings only"
failed=0
for name in "${targets[@]}"; do
  seeds=$build/seeds/$name corpus=$build/corpus/$name findings=$build/findings/$name
  rm -rf "$seeds" && mkdir -p "$seeds" "$corpus" "$findings"
  make_seeds "$name"
  regressions=()
  [[ -d tests/fuzz/regressions/$name ]] && regressions=(tests/fuzz/regressions/"$name")
  log=$build/$name.log
  rm -f "$findings"/*
  # New inputs go to the corpus (kept between runs); seeds and findings are read only.
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 UBSAN_OPTIONS=print_stacktrace=1 \
    "$build/$name" -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb="$rss_mb" \
    -malloc_limit_mb="$malloc_mb" -max_len="$max_len" -print_final_stats=1 -artifact_prefix="$findings/" \
    "$corpus" "$seeds" "${regressions[@]}" >"$log" 2>&1
  rc=$?
  execs=$(grep -oE 'stat::number_of_executed_units: [0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
  time=$(grep -oE 'Done [0-9]+ runs in [0-9]+ second' "$log" | grep -oE '[0-9]+ second' | grep -oE '[0-9]+')
  if ((rc == 0)); then
    echo "$name: passed, ${execs:-?} executions in ${time:-$seconds} s (corpus $(ls "$corpus" | wc -l) inputs, seeds $(ls "$seeds" | wc -l))"
  else
    failed=$((failed + 1))
    grep -A40 -E '^==[0-9]+==ERROR|runtime error|invariant failed|ALARM|out-of-memory|deadly signal' "$log" | head -60
    echo "$name: FAILED (libFuzzer exit $rc) after ${execs:-?} executions; log $log"
    for f in "$findings"/*; do
      [[ -f $f ]] && echo "  finding: $f -> fix the cause, then add it to tests/fuzz/regressions/$name/"
    done
  fi
done
echo "fuzz: $((${#targets[@]} - failed)) targets passed, $failed failed"
((failed == 0))
