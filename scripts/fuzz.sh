#!/usr/bin/env bash
# Fuzzes the model loader and `ictus check` (fuzz/model_check_fuzz.cpp) for a
# fixed budget under AddressSanitizer and UndefinedBehaviorSanitizer, with
# libFuzzer from Debian's clang. Seeds: fuzz/corpus (kept in the repository),
# examples/ and tests/bad_models/. Fails on any finding (crash, sanitizer
# report, uncaught exception, an input taking more than 10 s); the input is
# left in build/fuzz/findings/.
#   bash scripts/fuzz.sh            # the CI budget (ICTUS_FUZZ_SECONDS, default 180 s)
#   bash scripts/fuzz.sh --merge    # after a longer run: add what is new to fuzz/corpus
set -euo pipefail
cd "$(dirname "$0")/.."
budget="${ICTUS_FUZZ_SECONDS:-180}"
build=build/fuzz
fuzzer="$build/fuzz/ictus_fuzz_model"

# its own build, apart from the sanitizer tests' (preset sanitize): the
# coverage hooks in ictus_core would slow every test down
cmake -S . -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" -DICTUS_FUZZ=ON -DICTUS_SANITIZE=address,undefined \
  -DICTUS_WERROR=ON -DICTUS_BUILD_TESTS=OFF -DICTUS_BUILD_BENCH=OFF -DICTUS_PYTHON=OFF >/dev/null
cmake --build "$build" --target ictus_fuzz_model -j"$(nproc)"

# libFuzzer writes what it finds into the first directory: a scratch copy
work="$build/corpus"
rm -rf "$work" "$build/findings"
mkdir -p "$work" "$build/findings"
cp fuzz/corpus/* "$work"/
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

if [ "${1:-}" = "--merge" ]; then
  # a longer run, then what it found beyond the seeds goes into fuzz/corpus
  "$fuzzer" -max_total_time="$budget" -timeout=10 -rss_limit_mb=2048 \
    -max_len=8192 -dict=fuzz/yaml.dict -artifact_prefix="$build/findings/" \
    "$work" examples tests/bad_models 2>"$build/fuzz.log"
  merged="$build/merged"
  rm -rf "$merged" && mkdir -p "$merged"
  cp examples/*.yaml tests/bad_models/*.yaml "$merged"/
  ls "$merged" | sort >"$build/seeds.txt"
  # inputs of at most 2 kB keep the corpus small (~400 kB)
  "$fuzzer" -merge=1 -timeout=10 -max_len=2048 "$merged" "$work" \
    2>"$build/merge.log"
  rm -f fuzz/corpus/*
  ls "$merged" | sort | comm -23 - "$build/seeds.txt" | while read -r f; do
    cp "$merged/$f" fuzz/corpus/
  done
  echo "fuzz/corpus: $(ls fuzz/corpus | wc -l) inputs"
  exit 0
fi

echo "fuzzing the model loader and check for ${budget} s"
"$fuzzer" -max_total_time="$budget" -timeout=10 -rss_limit_mb=2048 \
  -max_len=8192 -dict=fuzz/yaml.dict -artifact_prefix="$build/findings/" -print_final_stats=1 \
  "$work" examples tests/bad_models 2>"$build/fuzz.log" || {
  tail -n 60 "$build/fuzz.log"
  echo "fuzzing found an input that is not handled: $(ls "$build/findings")" >&2
  exit 1
}
grep -E "^(stat::number_of_executed_units|stat::new_units_added|INFO: seed corpus)" \
  "$build/fuzz.log" || true
