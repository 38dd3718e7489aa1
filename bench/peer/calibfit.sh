#!/usr/bin/env bash
# calibfit.sh: the calibrators' fits against their PyTorch / scikit-learn
# peers on the same instance, alternating in one run: ROUNDS times, the
# engine's benchtable rows calib/M/kK/nN (the fit alone, bytes and
# allocations per call), then bench/peer/calib.py on the instance that
# bench/calibdata writes with the same seed.
#
#	bench/peer/calibfit.sh K N ROUNDS METHODS [THREADS [ITERS]]
#	bench/peer/calibfit.sh 100 10000 3 ts,vs,ms,dirichlet,hist,isotonic
#	bench/peer/calibfit.sh 1000 50000 1 vs,ms,dirichlet 2 20
#
# THREADS (default 2) is both GOMAXPROCS and torch's thread count. ITERS
# caps the affine fits (vs, ms, dirichlet) at that many L-BFGS iterations
# on both sides: the rows calib/M/kK/nN/itITERS.
set -euo pipefail
cd "$(dirname "$0")/../.."
k=$1 n=$2 rounds=$3 methods=$4 threads=${5:-2} iters=${6:-}
. bench/peer/env.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/benchtable" ./bench/benchtable
go run ./bench/calibdata -k "$k" -n "$n" -out "$tmp/data"
echo "# $(lscpu | sed -n 's/^Model name: *//p'), nproc $(nproc), GOMAXPROCS=$threads, torch threads $threads, load $(cut -d' ' -f1-3 /proc/loadavg)"
pattern="^calib/(${methods//,/|})/k$k/n$n\$" peerargs=()
if [ -n "$iters" ]; then
	pattern="^calib/(${methods//,/|})/k$k/n$n/it$iters\$" peerargs=(--max-iter "$iters")
fi
for r in $(seq "$rounds"); do
	echo "## round $r: ecl"
	GOMAXPROCS=$threads "$tmp/benchtable" -run "$pattern" | grep '^calib/'
	echo "## round $r: peer"
	/usr/bin/python3 bench/peer/calib.py "$tmp/data" --methods "$methods" --reps 1 --threads "$threads" "${peerargs[@]}" | grep -v '^#'
done
