#!/usr/bin/env bash
# ictus against Simbody, MuJoCo, DART and Siconos on the same models, in one command:
#
#   bench/peers/run.sh [--install] [--quick] [--n=4,16,64,256,1024] [--only=chain,chain3d,slider,v8,ball,piston]
#                      [--out=DIR]
#
#   --install  apt-get what is missing first (root; scripts/install-deps.sh): the peers libsimbody-dev
#              libmujoco-dev libdart-dev libdart-external-ikfast-dev siconos, Siconos' headers
#   --quick    N = 4, 16, one repeat, rk4 only for ictus (ida only on the stiff piston): what CI runs
# Builds ictus (release preset) and one driver per peer (drivers/, g++ -O2), runs each model in each
# engine, and writes DIR/<engine>.csv, DIR/table.md (printed), DIR/table.csv and DIR/cost_vs_n.svg
# (table.py). Default DIR: build/peers. Costs are CPU time (docs/performance.md).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=$ROOT/build/peers
NS=4,16,64,256,1024
ONLY=chain,chain3d,slider,v8,ball,piston
REPEATS=${BENCH_REPEATS:-3}
VARIANTS=rk4,dopri5-1e-6
STIFF_VARIANTS=ida-1e-8,cvode-1e-8
INSTALL=0
for a in "$@"; do
  case "$a" in
    --install) INSTALL=1 ;;
    --quick) NS=4,16; REPEATS=1; VARIANTS=rk4; STIFF_VARIANTS=ida-1e-8 ;;
    --n=*) NS=${a#--n=} ;;
    --only=*) ONLY=${a#--only=} ;;
    --out=*) OUT=$(realpath -m "${a#--out=}") ;;
    *) echo "run.sh: unknown option $a" >&2; exit 2 ;;
  esac
done
# the peers are in the project's package list (scripts/install-deps.sh)
[ "$INSTALL" = 1 ] && bash "$ROOT/scripts/install-deps.sh"
# single-threaded BLAS: OpenBLAS' threads make the peers' small dense solves slower on 2 cores
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
export BENCH_REPEATS=$REPEATS BENCH_MAX_RUN_S=${BENCH_MAX_RUN_S:-30} BENCH_SLOW_S=${BENCH_SLOW_S:-15}
mkdir -p "$OUT/bin"
rm -f "$OUT"/*.csv

echo "== building ictus $(date -u +%T)"
(cd "$ROOT" && cmake --preset release > "$OUT/cmake.log" && cmake --build --preset release -j2 --target ictus >> "$OUT/cmake.log")
ICTUS=$ROOT/build/release/apps/ictus

echo "== building the peer drivers $(date -u +%T)"
CXX=${CXX:-g++}
FLAGS="-O2 -std=c++17 -w"
D=$HERE/drivers
$CXX $FLAGS -o "$OUT/bin/mujoco_bench" "$D/mujoco_bench.cpp" -lmujoco
$CXX $FLAGS -o "$OUT/bin/simbody_bench" "$D/simbody_bench.cpp" \
  $(pkg-config --cflags simbody | sed 's/-std=c++11//') $(pkg-config --libs simbody)
$CXX $FLAGS -o "$OUT/bin/dart_bench" "$D/dart_bench.cpp" \
  $(pkg-config --cflags dart | sed 's/-std=c++11//') $(pkg-config --libs dart)
SICONOS="-I/usr/include/siconos -I/usr/include/siconos/kernel -I/usr/include/siconos/numerics \
  -I/usr/include/siconos/mechanics"
$CXX $FLAGS -o "$OUT/bin/siconos_bench" "$D/siconos_bench.cpp" $SICONOS \
  -lsiconos_mechanics -lsiconos_kernel -lsiconos_numerics

{ for p in libmujoco-dev libsimbody-dev libdart-dev siconos g++; do
    dpkg-query -W -f='${Package} ${Version}\n' "$p"; done
  echo "ictus $("$ICTUS" --version)"; uname -srm; lscpu | grep -E 'Model name|^CPU\(s\)'; date -u
} > "$OUT/versions.txt"

for e in simbody mujoco dart siconos; do
  echo "== $e $(date -u +%T)"
  "$OUT/bin/${e}_bench" "--only=$ONLY" "--n=$NS" 2> "$OUT/$e.stderr" > "$OUT/$e.csv"
  [ -s "$OUT/$e.stderr" ] || rm -f "$OUT/$e.stderr"
done
echo "== ictus $(date -u +%T)"
/usr/bin/python3 "$HERE/run_ictus.py" --ictus "$ICTUS" --repeats="$REPEATS" "--only=$ONLY" \
  "--n=$NS" "--variants=$VARIANTS" "--stiff-variants=$STIFF_VARIANTS" > "$OUT/ictus.csv"
echo "== table $(date -u +%T)"
/usr/bin/python3 "$HERE/table.py" "$OUT"
