#!/usr/bin/env bash
# A run that creeps with tiny steps says so while it runs (issue 9 defect 4):
#   * a warning naming the likely cause, once, on stderr and in events.csv;
#   * a progress bar with the time left on a terminal (here a pseudo-terminal
#     from script(1)), none when stderr is not a terminal or with --quiet;
#   * SIGTERM then stops it (exit 143) with its incomplete set.
# usage: run_creeping.sh ICTUS SOURCE_DIR WORK_DIR
set -uo pipefail
ictus="$1"; source_dir="$2"; work="$3"
model="$source_dir/tests/cli/models/creeping_sign_friction.yaml"
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
wait_for() {  # text file: up to 60 s
  for _ in $(seq 1 600); do
    grep -qF -- "$1" "$2" 2> /dev/null && return 0
    sleep 0.1
  done
  fail "'$1' never appeared in $2"; cat "$2" >&2
}
warning="warning: the accepted steps have averaged"
cause="The likely cause is a discontinuous force"

# stderr not a terminal: the warning, no progress bar
"$ictus" run "$model" --out plain 2> plain.err > plain.out &
pid=$!
wait_for "$warning" plain.err
kill -TERM "$pid"; wait "$pid"; status=$?
[ "$status" -eq 143 ] || fail "not a terminal: exit $status, expected 143"
grep -qF "$cause" plain.err || fail "the warning does not name the likely cause"
[ "$(grep -cF "$warning" plain.err)" -eq 1 ] || fail "the warning is not given exactly once"
grep -qF " left" plain.err && fail "a progress bar was drawn on a stream that is not a terminal"
grep -qF "$cause" plain.incomplete/events.csv || fail "events.csv lacks the warning"

# on a terminal: the progress bar with the time left
# (the shell under script(1) writes its pid, then becomes ictus)
script -qec "echo \$\$ > tty.pid; exec '$ictus' run '$model' --out tty" tty.log > /dev/null 2>&1 &
script_pid=$!
wait_for " left" tty.log
kill -TERM "$(cat tty.pid)"; wait "$script_pid"
grep -qE "t = [0-9.e-]+ s  .* left" tty.log || fail "no time left in the progress bar: $(tail -c 300 tty.log)"
grep -qF "$warning" tty.log || fail "no warning on the terminal"

# on a terminal with --quiet: nothing until the interruption
script -qec "echo \$\$ > quiet.pid; exec '$ictus' run '$model' --out quiet --quiet" quiet.log \
  > /dev/null 2>&1 &
script_pid=$!
sleep 3
kill -TERM "$(cat quiet.pid)"; wait "$script_pid"
grep -qF " left" quiet.log && fail "--quiet drew a progress bar"
grep -qF "$warning" quiet.log && fail "--quiet printed the warning"
grep -qF "interrupted by signal 15" quiet.log || fail "--quiet: the interruption was not reported"

cd / && rm -rf "$work"
[ "$failures" -eq 0 ] || exit 1
echo "creeping run: warning, progress and quiet: ok"
