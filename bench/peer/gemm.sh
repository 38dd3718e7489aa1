#!/bin/sh
# gemm.sh: benchtable's matmul rows against OpenBLAS (gemm.c), the two run
# alternately for several rounds in one go, then per row the best and median
# GFLOP/s of each side and their ratios (this project / OpenBLAS).
#
#	bench/peer/gemm.sh [rounds [threads]]    (defaults 5 rounds, 2 threads)
#
# Needs a C compiler and OpenBLAS (Debian: apt-get install libopenblas-dev).
# GOMAXPROCS is set to the OpenBLAS thread count. OpenBLAS runs at full
# strength: OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE, which this workplace's
# environment sets (OpenBLAS then runs its Haswell kernels), are unset for
# it, so it picks its own (AVX-512 on this CPU); the header line names the
# kernel core it chose.
set -eu
cd "$(dirname "$0")/../.."
rounds=${1:-5}
threads=${2:-2}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cc -O2 -o "$dir/gemm" bench/peer/gemm.c -lopenblas
go build -o "$dir/benchtable" ./bench/benchtable
i=1
while [ "$i" -le "$rounds" ]; do
	echo "round $i/$rounds" >&2
	GOMAXPROCS=$threads "$dir/benchtable" -run '^matmul/' | awk '/^matmul\//{print "go", $1, $3}' >>"$dir/rows"
	env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OPENBLAS_NUM_THREADS=$threads "$dir/gemm" "$threads" >"$dir/peer"
	awk '/^matmul\//{print "blas", $1, $3}' "$dir/peer" >>"$dir/rows"
	i=$((i + 1))
done
echo "GFLOP/s over $rounds alternating rounds, $threads threads ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'));$(head -1 "$dir/peer")"
printf '%-22s %9s %9s %9s %9s %8s %8s\n' workload go-best go-med blas-best blas-med best/best med/med
for name in $(awk '{print $2}' "$dir/rows" | awk '!seen[$0]++'); do
	stats() { # best and median of one side's figures for this row
		awk -v s="$1" -v n="$name" '$1 == s && $2 == n {print $3}' "$dir/rows" | sort -g |
			awk '{v[NR] = $1} END {m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print v[NR], m}'
	}
	g=$(stats go)
	b=$(stats blas)
	echo "$name $g $b" | awk '{printf "%-22s %9.1f %9.1f %9.1f %9.1f %7.2fx %7.2fx\n", $1, $2, $3, $4, $5, $2 / $4, $3 / $5}'
done
