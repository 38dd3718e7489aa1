#!/bin/sh
# gemm.sh: benchtable's matmul rows against OpenBLAS (gemm.c), the two run
# alternately for several rounds in one go, then per row the best and median
# GFLOP/s of each side and their ratios (this project / OpenBLAS).
#
#	bench/peer/gemm.sh [rounds [threads]]    (defaults 5 rounds, 2 threads)
#
# Needs a C compiler and OpenBLAS (Debian: apt-get install libopenblas-dev).
# GOMAXPROCS is set to the OpenBLAS thread count. OpenBLAS runs at full
# strength: OPENBLAS_L2_SIZE, which this workplace's environment sets, is
# unset, and OPENBLAS_CORETYPE is chosen by a trial: OpenBLAS's own choice
# (the variable unset; 0.3.21 does not know every CPU and falls back to its
# SSE3 "Prescott" kernels on newer Xeons) and each kernel core this CPU's
# flags allow (SkylakeX and Cooperlake with AVX-512, Haswell with AVX2),
# one call each, the fastest at 1024² kept for the rounds; the trial's
# figures and the header line name the core that ran. Each row is printed
# twice: benchtable's matmul/… rows, whose tensor.MatMul allocates its
# result, and its matmul-arena/… rows, the same calls in a tensor.Arena
# that hands the result's buffer to the next call, as OpenBLAS's caller
# here passes one output buffer to every call.
set -eu
cd "$(dirname "$0")/../.."
rounds=${1:-5}
threads=${2:-2}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cc -O2 -o "$dir/gemm" bench/peer/gemm.c -lopenblas
go build -o "$dir/benchtable" ./bench/benchtable
blas() { # runs the peer with core type $1 ("auto": OpenBLAS's own choice)
	if [ "$1" = auto ]; then
		env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OPENBLAS_NUM_THREADS=$threads "$dir/gemm" "$threads"
	else
		env -u OPENBLAS_L2_SIZE OPENBLAS_CORETYPE="$1" OPENBLAS_NUM_THREADS=$threads "$dir/gemm" "$threads"
	fi
}
cores=auto
grep -qw avx2 /proc/cpuinfo && cores="$cores Haswell"
grep -qw avx512f /proc/cpuinfo && cores="$cores SkylakeX"
grep -qw avx512_bf16 /proc/cpuinfo && cores="$cores Cooperlake"
best=auto bestrate=0
for c in $cores; do
	rate=$(blas "$c" | awk '/^matmul\/.*\/1024 /{s += $3} END {print s + 0}')
	echo "trial: OPENBLAS_CORETYPE=$c: $(blas "$c" | head -1 | cut -d, -f2) 1024² f32+f64 $rate GFLOP/s" >&2
	if awk -v a="$rate" -v b="$bestrate" 'BEGIN {exit !(a > b)}'; then best=$c bestrate=$rate; fi
done
echo "OpenBLAS core type for the rounds: $best" >&2
# This CPU's multiply-add peak at the thread count (benchtable's fma-peak
# rows, the best of three), for the fraction each side reaches.
peaks=$(for i in 1 2 3; do GOMAXPROCS=$threads "$dir/benchtable" -run "^fma-peak/.*/threads$threads\$"; done |
	awk '/^fma-peak\/float32/ && $3 > s {s = $3} /^fma-peak\/float64/ && $3 > d {d = $3} END {print s + 0, d + 0}')
echo "peak: $threads threads, float32 / float64 $peaks GFLOP/s" >&2
i=1
while [ "$i" -le "$rounds" ]; do
	echo "round $i/$rounds" >&2
	GOMAXPROCS=$threads "$dir/benchtable" -run '^matmul(-arena)?/' |
		awk '/^matmul\//{print "go", $1, $3} /^matmul-arena\//{sub(/^matmul-arena/, "matmul", $1); print "arena", $1, $3}' >>"$dir/rows"
	blas "$best" >"$dir/peer"
	awk '/^matmul\//{print "blas", $1, $3}' "$dir/peer" >>"$dir/rows"
	i=$((i + 1))
done
echo "GFLOP/s over $rounds alternating rounds, $threads threads ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'));$(head -1 "$dir/peer")"
echo "peak: float32 / float64 $peaks GFLOP/s (24 independent AVX-512 multiply-adds a round on registers, benchtable's fma-peak rows); go/peak and blas/peak are the medians' fractions of it"
echo "result: alloc, tensor.MatMul allocating its result; arena, in a tensor.Arena (the result's buffer reused, as OpenBLAS's caller reuses its own)"
printf '%-22s %-6s %9s %9s %9s %9s %8s %8s %8s %9s\n' workload result go-best go-med blas-best blas-med best/best med/med go/peak blas/peak
for name in $(awk '$1 == "blas" {print $2}' "$dir/rows" | awk '!seen[$0]++'); do
	stats() { # best and median of one side's figures for this row
		awk -v s="$1" -v n="$name" '$1 == s && $2 == n {print $3}' "$dir/rows" | sort -g |
			awk '{v[NR] = $1} END {m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print v[NR], m}'
	}
	b=$(stats blas)
	peak=$(echo "$peaks" | awk -v n="$name" '{print (n ~ /float64/) ? $2 : $1}')
	for side in go arena; do
		g=$(stats $side)
		echo "$name $(echo $side | sed 's/^go$/alloc/') $g $b $peak" | awk '{
			gp = bp = "-" # no peak row off AVX-512
			if ($7 > 0) {gp = sprintf("%.0f%%", 100 * $4 / $7); bp = sprintf("%.0f%%", 100 * $6 / $7)}
			printf "%-22s %-6s %9.1f %9.1f %9.1f %9.1f %7.2fx %7.2fx %8s %9s\n", $1, $2, $3, $4, $5, $6, $3 / $5, $4 / $6, gp, bp
		}'
	done
done
