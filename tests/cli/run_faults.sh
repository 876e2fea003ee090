#!/usr/bin/env bash
# Fault tests of `ictus run` and its output directory (issue 15 defect 1,
# issue 9 "fault tests in CI"; rules in docs/cli.md):
#   * a failing run (late failure, full disk via ulimit -f), an interrupted
#     run (SIGTERM, SIGINT) and a second run racing into the same --out leave
#     the completed run in --out byte-identical; the incomplete set goes to
#     --out.incomplete with a manifest that matches its files;
#   * a completed run replaces --out as a whole set;
#   * an unwritable --out and one holding foreign files are refused;
#   * each ends with its documented exit status.
# usage: run_faults.sh ICTUS SOURCE_DIR WORK_DIR
set -uo pipefail
ictus="$1"; source_dir="$2"; work="$3"
pendulum="$source_dir/examples/pendulum.yaml"
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
expect_status() {  # what expected actual
  [ "$3" -eq "$2" ] || fail "$1: exit status $3, expected $2"
}
expect_in() {  # what text file
  grep -qF -- "$2" "$3" || { fail "$1: '$2' not in $3:"; cat "$3" >&2; }
}
# every file of DIR is in DIR/run.json with its size, and nothing else is
manifest_matches() {  # what dir status
  /usr/bin/python3 - "$2" "$3" <<'PY' || fail "$1: run.json does not match $2"
import json, os, sys
d, status = sys.argv[1], sys.argv[2]
m = json.load(open(os.path.join(d, "run.json")))
listed = {f["name"]: f["bytes"] for f in m["files"]}
present = {n: os.path.getsize(os.path.join(d, n)) for n in os.listdir(d) if n != "run.json"}
if listed != present: sys.exit("listed %s, present %s" % (listed, present))
if m["status"] != status: sys.exit("status %s, expected %s" % (m["status"], status))
PY
}
fingerprint() { (cd "$1" && md5sum ./* 2>/dev/null; ls -l --time-style=+%s -i .); }
# waits until DIR.partial-* holds a results file (the run is writing)
wait_for_partial() {
  for _ in $(seq 1 200); do
    if compgen -G "$1.partial-*/results.csv.partial" > /dev/null; then return 0; fi
    sleep 0.05
  done
  fail "$1: the run never started writing"
}

# a completed run: the set and its manifest
"$ictus" run "$pendulum" --out o --quiet; expect_status "first run" 0 $?
manifest_matches "first run" o completed
before=$(fingerprint o)

# a run that fails midway leaves o untouched and its set in o.incomplete
"$ictus" run "$source_dir/tests/bad_models/fails_midway.yaml" --out o --quiet 2> err.txt
expect_status "failing run" 3 $?
[ "$(fingerprint o)" = "$before" ] || fail "a failing run changed o"
[ -f o.incomplete/results.incomplete.csv ] || fail "a failing run left no o.incomplete/results.incomplete.csv"
manifest_matches "failing run" o.incomplete failed
expect_in "failing run" "o.incomplete/results.incomplete.csv" err.txt
ls -d o.partial-* 2> /dev/null && fail "a failing run left its staging directory"

# bad input found only when the run starts (the initial assembly fails)
"$ictus" run "$source_dir/tests/bad_models/cannot_assemble.yaml" --out o --quiet 2> err.txt
expect_status "assembly fails" 2 $?
expect_in "assembly fails" "the constraints cannot be assembled" err.txt
[ "$(fingerprint o)" = "$before" ] || fail "a run whose assembly failed changed o"
manifest_matches "assembly fails" o.incomplete failed

# a full disk: a file size limit of 64 kB (SIGXFSZ is ignored, the write fails)
(ulimit -f 64; "$ictus" run "$pendulum" --out o --until 100 --quiet 2> err.txt)
expect_status "full disk" 1 $?
expect_in "full disk" "File too large" err.txt
[ "$(fingerprint o)" = "$before" ] || fail "a run on a full disk changed o"
manifest_matches "full disk" o.incomplete failed

# SIGTERM and SIGINT: the run stops at the next step, writes its incomplete
# set with the events so far, and exits 128 + the signal
for signal in TERM INT; do
  "$ictus" run "$pendulum" --out o --until 20000 --quiet 2> err.txt &
  pid=$!
  wait_for_partial o
  # a second run into the same directory meanwhile is refused
  "$ictus" run "$pendulum" --out o --quiet 2> err2.txt
  expect_status "second run while the first writes" 2 $?
  expect_in "second run" "another ictus run (pid $pid) is writing" err2.txt
  kill -s "$signal" "$pid"
  wait "$pid"
  status=$?
  [ "$signal" = TERM ] && expected=143 || expected=130
  expect_status "SIG$signal" "$expected" "$status"
  expect_in "SIG$signal" "interrupted by signal" err.txt
  [ "$(fingerprint o)" = "$before" ] || fail "SIG$signal changed o"
  manifest_matches "SIG$signal" o.incomplete interrupted
  tail -n 2 o.incomplete/events.csv | grep -q ",interrupted," || fail "SIG$signal: events.csv lacks the interruption"
  [ -f o.incomplete/results.incomplete.csv ] || fail "SIG$signal: no results.incomplete.csv"
  [ -e o.lock ] && fail "SIG$signal: the lock file stayed"
done

# a completed run replaces the set as a whole (and the stale incomplete set)
"$ictus" run "$pendulum" --out o --until 2 --quiet; expect_status "second complete run" 0 $?
manifest_matches "second complete run" o completed
/usr/bin/python3 -c 'import json,sys; sys.exit(json.load(open("o/run.json"))["settings"]["until"] != 2)' \
  || fail "o/run.json is not the second run's"
[ "$(wc -l < o/results.csv)" -eq 202 ] || fail "o/results.csv is not the second run's"
[ -e o.incomplete ] && fail "the stale o.incomplete stayed after a completed run"

# an unwritable --out: below a regular file (root may write anywhere else)
touch plain_file
"$ictus" run "$pendulum" --out plain_file/o --quiet 2> err.txt
expect_status "unwritable --out" 1 $?
expect_in "unwritable --out" "cannot create" err.txt
if [ "$(id -u)" -ne 0 ]; then
  mkdir locked && chmod 555 locked
  "$ictus" run "$pendulum" --out locked/o --quiet 2> err.txt
  expect_status "read-only parent" 1 $?
  expect_in "read-only parent" "Permission denied" err.txt
  chmod 755 locked
fi

# a directory holding other files is never replaced
mkdir mine && echo keep > mine/notes.txt
"$ictus" run "$pendulum" --out mine --quiet 2> err.txt
expect_status "foreign directory" 2 $?
expect_in "foreign directory" "holds 'notes.txt'" err.txt
[ "$(cat mine/notes.txt)" = keep ] || fail "a refused run touched mine/notes.txt"
ls -d mine.* 2> /dev/null && fail "a refused run left files beside mine"

# run.json is read back: a directory whose files are not the set it lists
# (files of two runs, a file edited by hand, results of an older ictus
# without a manifest, a broken manifest) is refused, and left as it was
mixed_case() {  # what expected-message
  local was; was=$(fingerprint o)
  "$ictus" run "$pendulum" --out o --until 1 --quiet 2> err.txt
  expect_status "$1" 2 $?
  expect_in "$1" "$2" err.txt
  [ "$(fingerprint o)" = "$was" ] || fail "$1: a refused run changed o"
  ls -d o.partial-* o.incomplete 2> /dev/null && fail "$1: a refused run left files beside o"
}
cp o/events.csv events.keep; cp o/run.json run.keep
echo "0.5,extra,line" >> o/events.csv
mixed_case "a file edited" "events.csv is $(stat -c %s o/events.csv) bytes, run.json lists"
cp events.keep o/events.csv; rm o/events.csv
mixed_case "a file missing" "events.csv is missing"
cp events.keep o/events.csv; touch o/results.incomplete.csv
mixed_case "a file of another run" "results.incomplete.csv is not listed"
rm o/results.incomplete.csv; rm o/run.json
mixed_case "no manifest" "holds result files but no run.json"
printf '{\n  "status": "completed",\n  "files": [\n' > o/run.json
mixed_case "a broken manifest" "o/run.json:4:1: not a valid run.json"
cp run.keep o/run.json
"$ictus" run "$pendulum" --out o --until 1 --quiet; expect_status "the set restored" 0 $?
manifest_matches "the set restored" o completed

# a file derived from the set (a spectrum) joins its manifest, so the next
# run may replace the directory; a spectrum of results edited since is refused
"$ictus" spectrum o pivot.angle > /dev/null; expect_status "spectrum into the set" 0 $?
/usr/bin/python3 - <<'PY' || fail "spectrum: run.json does not list spectrum_pivot.angle.csv"
import json, os
m = json.load(open("o/run.json"))
d = {f["name"]: f["bytes"] for f in m.get("derived", [])}
assert d.get("spectrum_pivot.angle.csv") == os.path.getsize("o/spectrum_pivot.angle.csv"), d
PY
"$ictus" run "$pendulum" --out o --until 1 --quiet; expect_status "a run over a derived file" 0 $?
[ -e o/spectrum_pivot.angle.csv ] && fail "the derived spectrum stayed beside a new set"
echo "1,2" >> o/results.csv
"$ictus" spectrum o pivot.angle > /dev/null 2> err.txt; expect_status "spectrum of edited results" 2 $?
expect_in "spectrum of edited results" "the run.json beside it lists" err.txt

cd / && rm -rf "$work"
[ "$failures" -eq 0 ] || exit 1
echo "output directory faults: ok"
