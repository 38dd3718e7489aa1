#!/usr/bin/env bash
# Integration test of ecl sweep on a real Slurm cluster (scripts/slurm-local.sh,
# one node on this machine): a sweep of 6 ecl sim jobs runs as a job array and
# every result file and the merged table are checked; the sweep's first two
# tasks run again into a second folder, task 0 is cancelled (scancel) after
# its first run file, and the resubmitted task resumes: it reuses that file
# and its results and diagrams equal the uninterrupted task's byte for byte.
# Fails with the reason when the cluster cannot start. About a minute on 2
# idle cores.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

fail() { echo "slurm-test: FAIL: $*" >&2; exit 1; }

tmp=$(mktemp -d /tmp/ecl-slurm-test.XXXXXX)
chmod 0755 "$tmp" # munged, as the munge user, works below it
cleanup() {
	"$repo/scripts/slurm-local.sh" stop "$tmp/cluster" || true
	rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/ecl" ./cmd/ecl
echo "slurm-test: ecl built in $SECONDS s"
"$repo/scripts/slurm-local.sh" start "$tmp/cluster" || fail "the Slurm cluster did not start (see above)"
echo "slurm-test: cluster up at $SECONDS s"
. "$tmp/cluster/env"

# Each job: one seed, two runs (the shifts), several seconds each, one
# after the other (-jobs 1: the task has one CPU, and side-by-side runs
# would end together): long enough that task 0 is still in its second run
# when it is cancelled.
study=(sim -runs 1 -jobs 1 -shifts normal,uniform -paradigms toplabel,canonical -methods ts -points 800 -hidden 16
	-base-epochs 1200 -aux-epochs 200 -ecl-epochs 200 -diagram-dpi 30 -quiet)
emit() { # emit OUT: the job array script of the sweep into OUT
	"$tmp/ecl" sweep -out "$1" -vary seed=1:6 -emit slurm -cpus 1 -mem 512 -time 10:00 -name ecl-ci \
		-o "$1.sbatch" "${study[@]}"
}
state() { scontrol show job "$1" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -1; }
# finish JOB: wait (polling; sbatch --wait polls slowly) until no task of
# JOB is pending or running, and fail unless every task COMPLETED.
finish() {
	for _ in $(seq 1200); do squeue -h -j "$1" 2>/dev/null | grep -q . || break; sleep 0.25; done
	! squeue -h -j "$1" 2>/dev/null | grep -q . || fail "job $1 still running after 5 minutes"
	bad=$(scontrol show job "$1" | grep -o 'JobState=[A-Z_]*' | grep -v COMPLETED || true)
	[ -z "$bad" ] || fail "job $1: $bad; logs: $(tail -n 3 "$tmp"/*/logs/*.out)"
}

# 1. The whole array, uninterrupted.
emit "$tmp/a"
grep -q -- '--array=0-5$' "$tmp/a.sbatch" || fail "sbatch script without --array=0-5: $(cat "$tmp/a.sbatch")"
start=$SECONDS
finish "$(sbatch --parsable "$tmp/a.sbatch")"
echo "slurm-test: 6-task array done in $((SECONDS - start)) s"
for i in 1 2 3 4 5 6; do
	d="$tmp/a/seed=$i"
	n=$(ls "$d"/runs/*.json 2>/dev/null | wc -l)
	[ "$n" -eq 2 ] || fail "task $i: $n run files in $d/runs, want 2"
	[ -s "$d/results.json" ] || fail "task $i: no results.json"
done
"$tmp/ecl" report -format text "$tmp/a" >"$tmp/a.txt" 2>"$tmp/a.err" || fail "ecl report: $(cat "$tmp/a.err")"
[ ! -s "$tmp/a.err" ] || fail "ecl report lists missing runs: $(cat "$tmp/a.err")"
for m in Uncal TS CE-finetune ECL-toplabel ECL-canonical; do
	[ "$(grep -c "^$m  " "$tmp/a.txt")" -eq 2 ] || fail "merged table lacks $m on both shifts: $(cat "$tmp/a.txt")"
done
grep -q '/6 ' "$tmp/a.txt" || fail "merged table does not count 6 seeds: $(cat "$tmp/a.txt")"

# 2. Tasks 0 and 1 of the same sweep, task 0 cancelled after its first run
# file, then resubmitted.
emit "$tmp/b"
job=$(sbatch --parsable --array=0-1 "$tmp/b.sbatch")
first=
for _ in $(seq 600); do
	first=$(ls "$tmp/b/seed=1/runs/"*.json 2>/dev/null | head -1 || true)
	[ -n "$first" ] && break
	sleep 0.1
done
[ -n "$first" ] || fail "task 0 wrote no run file in 60 s"
scancel "${job}_0"
for _ in $(seq 600); do squeue -h -j "$job" | grep -q . || break; sleep 0.25; done
[ "$(state "${job}_0")" = CANCELLED ] || fail "task 0 ended $(state "${job}_0"), not CANCELLED (it finished before scancel?)"
# The task was cancelled before it wrote its results (its second run may have
# ended while the signal was on its way).
n=$(ls "$tmp/b/seed=1/runs/"*.json | wc -l)
[ ! -e "$tmp/b/seed=1/results.json" ] || fail "the cancelled task wrote results.json ($n run files)"
if [ "$n" -eq 1 ]; then
	"$tmp/ecl" report -format none "$tmp/b/seed=1" 2>"$tmp/b.err" || true
	grep -q 'missing: sim run' "$tmp/b.err" || fail "ecl report does not list the cancelled task's missing run: $(cat "$tmp/b.err")"
fi
before=$(stat -c %Y.%i "$first")
finish "$(sbatch --parsable --array=0 "$tmp/b.sbatch")"
[ "$(stat -c %Y.%i "$first")" = "$before" ] || fail "the resubmitted task rewrote $first instead of reusing it"
grep -q "reusing the result file" "$tmp"/b/logs/ecl-ci-*_0.out || fail "the resubmitted task's log does not show the reuse"
"$tmp/ecl" report -format none "$tmp/b/seed=1" 2>"$tmp/b.err"
[ ! -s "$tmp/b.err" ] || fail "runs still missing after the resume: $(cat "$tmp/b.err")"
cmp "$tmp/a/seed=1/results.csv" "$tmp/b/seed=1/results.csv" || fail "the resumed task's results differ from the uninterrupted one's"
diff -r "$tmp/a/seed=1/diagrams" "$tmp/b/seed=1/diagrams" || fail "the resumed task's diagrams differ from the uninterrupted one's"
echo "slurm-test: ok at $SECONDS s (task 0 cancelled with $n of 2 run files, resumed: same results and diagrams)"
cat "$tmp/a.txt"
