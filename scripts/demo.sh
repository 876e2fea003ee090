#!/usr/bin/env bash
# Fresh machine to first result: install what is missing, build the command
# line (Release), and simulate the bundled slider-crank example. Only the
# target is chosen here, not the configuration: the test script then builds
# and runs every test in the same build directory.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release
cmake --build --preset release -j"$(nproc)" --target ictus
# the Python module, when the configuration has it (ICTUS_PYTHON, docs/python.md)
targets="$(cmake --build --preset release --target help)"
if grep -qx '\.\.\. ictus_python' <<<"$targets"; then
  cmake --build --preset release -j"$(nproc)" --target ictus_python
  echo "import ictus: PYTHONPATH=build/release/python /usr/bin/python3 (docs/python.md)"
fi
./build/release/apps/ictus run examples/slider_crank.yaml --out out/slider_crank
