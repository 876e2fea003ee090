#!/bin/sh
# Builds the Siconos side of the bouncing-ball benchmark (docs/benchmarks.md)
# into build/siconos/siconos_ball. Siconos is no dependency of ictus: this
# installs its kernel from Debian when missing (needs root, as
# scripts/install-deps.sh does).
#   bench/siconos/build.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
if ! [ -f /usr/include/siconos/kernel/SiconosKernel.hpp ]; then
  apt-get install -y --no-install-recommends libsiconos-kernel-dev
fi
mkdir -p "$root/build/siconos"
g++ -std=c++17 -O2 -o "$root/build/siconos/siconos_ball" "$here/siconos_ball.cpp" \
  -I/usr/include/siconos -I/usr/include/siconos/kernel -I/usr/include/siconos/numerics \
  -lsiconos_kernel -lsiconos_numerics
echo "built $root/build/siconos/siconos_ball"
