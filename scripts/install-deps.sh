#!/usr/bin/env bash
# Installs the Debian 12 packages ictus needs to build and test, if missing.
set -euo pipefail
packages=(build-essential cmake libeigen3-dev libyaml-cpp-dev libmuparser-dev libcli11-dev
          libfmt-dev libgtest-dev libbenchmark-dev libsundials-dev
          libsuitesparse-dev libssl-dev nlohmann-json3-dev libsiconos-numerics-dev
          libnlopt-cxx-dev  # ictus optimize (docs/studies.md)
          libopenmpi-dev openmpi-bin  # sweeps across MPI ranks (ICTUS_MPI, docs/studies.md)
          python3  # the CLI tests check run.json (json) and resident size (resource)
          python3-matplotlib  # the plots of docs/examples (scripts/plot_examples.py)
          python3-dev pybind11-dev python3-numpy python3-pytest python3-pandas  # import ictus (docs/python.md)
          clang libclang-rt-14-dev  # the fuzzer (scripts/fuzz.sh): clang and its libFuzzer
          chromium  # the HTML report's browser tests (tests/report/)
          # the peer engines of bench/peers/run.sh, its plot and its drivers' build
          libsimbody-dev libmujoco-dev libdart-dev libdart-external-ikfast-dev siconos
          libsiconos-kernel-dev libsiconos-mechanics-dev python3-matplotlib pkg-config)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# the HTML report's front end is built by Node.js and npm (docs/report.md);
# a Node.js installed otherwise (with its own npm) is kept
if ! command -v node >/dev/null 2>&1; then missing+=(nodejs); fi
if ! command -v npm >/dev/null 2>&1; then missing+=(npm); fi
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "installing: ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
