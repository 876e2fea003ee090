#!/usr/bin/env bash
# `ictus sweep` and `ictus optimize` from the command line (issue 11, docs/studies.md):
#   * the seed-003 sweep (examples/studies/suspension_sweep.yaml, 10 x 10)
#     writes one CSV whose maxima equal those `ictus run --set K=.. --set C=..`
#     prints for the same case (to the digits printed);
#   * a case with an impossible parameter is a failed row, not a failed study;
#   * restart: the cases of the journal are not run again (rows kept as they
#     were written), a torn last line is run again, and a sweep interrupted by
#     SIGINT and started again gives the CSV of an uninterrupted one;
#   * under `mpirun -n 2` and `-n 3` (when MPIEXEC is given) the same CSV as
#     the threads (all but the wall time); more ranks than cases is refused;
#   * `ictus optimize` writes the history of every evaluation.
# usage: run_studies.sh ICTUS SOURCE_DIR WORK_DIR [MPIEXEC]
set -uo pipefail
ictus="$1"; source_dir="$2"; work="$3"; mpiexec="${4:-}"
sweep_study="$source_dir/examples/studies/suspension_sweep.yaml"
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
expect_status() {  # what expected actual
  [ "$3" -eq "$2" ] || fail "$1: exit status $3, expected $2"
}
expect_in() {  # what text file
  grep -qF -- "$2" "$3" || { fail "$1: '$2' not in $3:"; cat "$3" >&2; }
}
# the CSV without its last column (the wall time of each case)
without_wall() { sed 's/,[^,]*$//' "$1"; }
same_rows() {  # what a.csv b.csv
  if ! diff <(without_wall "$2") <(without_wall "$3") > /dev/null; then
    fail "$1: $3 differs from $2"
    diff <(without_wall "$2") <(without_wall "$3") | head -5 >&2
  fi
}

# --- the sweep, and single runs of two of its cases ---------------------------
"$ictus" sweep "$sweep_study" --out threads.csv > sweep.out 2> sweep.err
expect_status "sweep" 0 $?
[ "$(wc -l < threads.csv)" -eq 101 ] || fail "sweep: threads.csv has $(wc -l < threads.csv) lines, expected 101"
expect_in "sweep progress" "sweep: 100/100 cases" sweep.err
[ -e threads.csv.journal ] && fail "sweep: the journal was left after the CSV was written"
for case in "33 800 16" "98 1600 36"; do
  set -- $case
  "$ictus" run "$source_dir/examples/suspension.yaml" --set K="$2" --set C="$3" --out "run$1" \
    --no-progress > "run$1.out" 2>&1
  expect_status "ictus run case $1" 0 $?
  python3 - threads.csv "$1" "run$1.out" <<'PY' || fail "case $1: the sweep's maxima differ from ictus run's"
import csv, sys
rows = {r["case"]: r for r in csv.DictReader(open(sys.argv[1]))}
row = rows[sys.argv[2]]
printed = {}
labels = (("u_max ", "u_max"), ("v_max ", "v_max"), ("a_max (max |a|)", "a_max"),
          ("a_max in the pulse", "a_pulse"))
for line in open(sys.argv[3]):
    for label, metric in labels:
        if line.startswith(label):  # label, channel, max |.| or min, value, t, ...
            words = line[len(label):].split()[1:]
            printed[metric] = float(words[2] if words[0] == "max" else words[1])
for metric in ("u_max", "v_max", "a_max", "a_pulse"):
    a, b = float(row[metric]), printed[metric]
    if abs(a - b) > 1e-7 * abs(b):  # ictus run prints 8 digits
        sys.exit("%s: sweep %r, ictus run %r" % (metric, a, b))
PY
done

# --- a failed case is a row ----------------------------------------------------
"$ictus" sweep "$source_dir/tests/studies/impossible_mass.yaml" --out impossible.csv \
  > impossible.out 2> impossible.err
expect_status "impossible parameter" 0 $?
[ "$(wc -l < impossible.csv)" -eq 4 ] || fail "impossible parameter: expected 3 rows"
grep -q '^1,-1,,failed,.*mass' impossible.csv || { fail "impossible parameter: no failed row 1"; cat impossible.csv >&2; }
grep -q '^2,3,[-0-9.e]*,ok,' impossible.csv || fail "impossible parameter: case 2 did not run"
expect_in "impossible parameter (stderr)" "case 1 failed" impossible.err
expect_in "impossible parameter (summary)" "(1 failed" impossible.out
# started again from a journal that holds the failed row: the progress counts
# it among the failed cases, as the summary does
head -3 impossible.csv > impossible_again.csv.journal
"$ictus" sweep "$source_dir/tests/studies/impossible_mass.yaml" --out impossible_again.csv \
  > impossible_again.out 2> impossible_again.err
expect_status "impossible parameter, restarted" 0 $?
expect_in "impossible parameter, restarted (progress)" "sweep: 3/3 cases (1 failed)" \
  impossible_again.err
expect_in "impossible parameter, restarted (summary)" "(1 failed" impossible_again.out

# --- restart from a journal -----------------------------------------------------
# the first 40 rows as an earlier start left them (their wall time marked), and
# a torn line: those 40 are kept as they are, the rest run
{ head -41 threads.csv | sed '2,$s/,[^,]*$/,123.000000/'; sed -n 42p threads.csv | cut -c1-20; } \
  > restart.csv.journal
"$ictus" sweep "$sweep_study" --out restart.csv > restart.out 2>&1
expect_status "restart" 0 $?
expect_in "restart" "40 done before" restart.out
[ "$(grep -c ',123.000000$' restart.csv)" -eq 40 ] || fail "restart: the 40 journal rows were not kept"
same_rows "restart" threads.csv restart.csv
# a journal of another study is refused, not mixed in
printf 'case,x\n' > other.csv.journal
"$ictus" sweep "$sweep_study" --out other.csv > other.out 2>&1
expect_status "journal of another study" 1 $?
expect_in "journal of another study" "is the journal of another study" other.out
# interrupted by SIGINT (one thread: about a second of cases), then started again
"$ictus" sweep "$sweep_study" --out interrupted.csv --threads 1 > interrupted.out 2>&1 &
pid=$!
sleep 0.4
kill -INT "$pid"
wait "$pid"
expect_status "interrupted sweep" 130 $?
expect_in "interrupted sweep" "the same command continues the sweep" interrupted.out
[ -e interrupted.csv ] && fail "interrupted sweep: wrote the CSV"
[ -s interrupted.csv.journal ] || fail "interrupted sweep: no journal"
"$ictus" sweep "$sweep_study" --out interrupted.csv > continued.out 2>&1
expect_status "continued sweep" 0 $?
expect_in "continued sweep" "done before" continued.out
same_rows "continued sweep" threads.csv interrupted.csv

# --- MPI ------------------------------------------------------------------------
if [ -n "$mpiexec" ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  # Open MPI keeps memory to the end of the process: no leak report of its own
  # under the sanitizer preset
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  for n in 2 3; do
    "$mpiexec" -n "$n" --oversubscribe "$ictus" sweep "$sweep_study" --out "mpi$n.csv" \
      > "mpi$n.out" 2>&1
    expect_status "mpirun -n $n" 0 $?
    expect_in "mpirun -n $n" "on $n MPI ranks" "mpi$n.out"
    same_rows "mpirun -n $n" threads.csv "mpi$n.csv"
  done
  "$mpiexec" -n 3 --oversubscribe "$ictus" sweep "$source_dir/tests/studies/two_cases.yaml" \
    --out ranks.csv > ranks.out 2>&1
  expect_status "more ranks than cases" 2 $?
  expect_in "more ranks than cases" "more MPI ranks (3) than cases (2)" ranks.out
  [ -e ranks.csv ] && fail "more ranks than cases: wrote the CSV"
fi

# --- optimize -------------------------------------------------------------------
"$ictus" optimize "$source_dir/examples/studies/suspension_optimize.yaml" --out history.csv \
  > optimize.out 2> optimize.err
expect_status "optimize" 0 $?
expect_in "optimize" "best: K = " optimize.out
head -1 history.csv | grep -qx 'evaluation,K,C,a_unit,travel,feasible,status,error,wall_s' ||
  fail "optimize: history header $(head -1 history.csv)"
evaluations=$(sed -n 's/^\([0-9]*\) evaluations.*/\1/p' optimize.out)
[ "$(($(wc -l < history.csv) - 1))" -eq "${evaluations:-0}" ] ||
  fail "optimize: $(wc -l < history.csv) history lines for ${evaluations:-?} evaluations"

if [ "$failures" -gt 0 ]; then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "studies: all checks passed"
