#!/usr/bin/env bash
# The baseline of the sweep benchmark (docs/studies.md, "Speed"): the 100
# cases of examples/studies/suspension_sweep.yaml as a shell loop of
# `ictus run --set K=.. --set C=..`, one process per case.
# usage: run_loop.sh ICTUS SOURCE_DIR WORK_DIR
set -euo pipefail
ictus="$1"; source_dir="$2"; work="$3"
mkdir -p "$work"
for i in $(seq 0 9); do
  for j in $(seq 0 9); do
    K=$(awk -v i="$i" 'BEGIN { printf "%.17g", 400 + 1200 * i / 9 }')
    C=$(awk -v j="$j" 'BEGIN { printf "%.17g", 4 + 36 * j / 9 }')
    "$ictus" run "$source_dir/examples/suspension.yaml" --set K="$K" --set C="$C" \
      --out "$work/case" --quiet --no-progress
  done
done
