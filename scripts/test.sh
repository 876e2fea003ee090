#!/usr/bin/env bash
# Install what is missing, build, and run every test: once optimised, once
# under AddressSanitizer and UndefinedBehaviorSanitizer. Whatever an earlier
# configuration left in the CMake cache, the tests are built
# (ICTUS_BUILD_TESTS=ON), and a test pass that finds no tests fails.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
jobs="$(nproc)"

cmake --preset release -DICTUS_BUILD_TESTS=ON
cmake --build --preset release -j"$jobs"
ctest --preset release --no-tests=error

cmake --preset sanitize -DICTUS_BUILD_TESTS=ON
cmake --build --preset sanitize -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  LSAN_OPTIONS="suppressions=$PWD/scripts/lsan.supp:print_suppressions=0" ctest --preset sanitize --no-tests=error

# the model-file fuzzer in its own clang build, for its fixed budget
# (scripts/fuzz.sh)
bash scripts/fuzz.sh
