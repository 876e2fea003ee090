#!/usr/bin/env bash
# Peak resident size stays flat however long a run is (issue 15 defect 2,
# issue 9 "fault tests"): 10^6 events against 10^3 events, and 10^6 output
# samples against 10^3 samples, each pair within 1.5x.
# usage: run_memory.sh ICTUS SOURCE_DIR WORK_DIR
set -euo pipefail
ictus="$1"; source_dir="$2"; work="$3"
model="$source_dir/tests/cli/models/event_every_step.yaml"
rm -rf "$work"; mkdir -p "$work"

# peak resident size [kB] of one `ictus run` (getrusage of the child)
peak_kb() {
  /usr/bin/python3 - "$@" <<'PY'
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
if done.returncode != 0:
    sys.exit("exit %d: %s" % (done.returncode, done.stderr))
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}

compare() {  # name small_kb large_kb
  echo "$1: peak resident size $2 kB -> $3 kB"
  if [ "$3" -gt $(( $2 * 3 / 2 )) ]; then
    echo "FAIL: $1: the larger run's peak resident size exceeds 1.5x the smaller's" >&2
    exit 1
  fi
}

few=$(peak_kb "$ictus" run "$model" --set f=1000 --out "$work/e3" --quiet)
many=$(peak_kb "$ictus" run "$model" --set f=1000000 --out "$work/e6" --quiet)
events=$(grep -c ',event,' "$work/e6/events.csv")
[ "$events" -eq 1000000 ] || { echo "FAIL: expected 10^6 events, events.csv has $events" >&2; exit 1; }
compare "10^3 -> 10^6 events" "$few" "$many"
rm -rf "$work/e3" "$work/e6"

# the output grid alone (one event at the start): 10^3 and 10^6 samples
few=$(peak_kb "$ictus" run "$model" --set f=0.5 --set dt=1e-3 --out "$work/s3" --quiet)
many=$(peak_kb "$ictus" run "$model" --set f=0.5 --set dt=1e-6 --out "$work/s6" --quiet)
rows=$(( $(wc -l < "$work/s6/results.csv") - 1 ))
[ "$rows" -ge 1000000 ] || { echo "FAIL: expected 10^6 samples, results.csv has $rows" >&2; exit 1; }
compare "10^3 -> 10^6 output samples" "$few" "$many"
rm -rf "$work"
