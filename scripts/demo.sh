#!/usr/bin/env bash
# Fresh machine to first result: install what is missing, build (Release),
# and simulate the bundled slider-crank example.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release -DICTUS_BUILD_TESTS=OFF -DICTUS_BUILD_BENCH=OFF
cmake --build --preset release -j"$(nproc)"
./build/release/apps/ictus run examples/slider_crank.yaml --out out/slider_crank
