#!/bin/sh
# alternate.sh runs the ECL loss rows of go run ./bench/benchtable and of
# bench/peer/ecl.py (PyTorch CPU) alternately, ROUNDS times each, and prints
# per row the best and the median time of each side and their ratios
# PyTorch/Go (above 1: Go is faster).
#
#   bench/peer/alternate.sh [ROUNDS] [REGEXP] [BENCHTABLE FLAGS...]
#
# Defaults: 3 rounds, the mini-batch rows of N = 10² and 10⁴ at K = 3 and
# 10 (the K = 1,000 rows: '^(ecl|eclsb)/.*/k1000/n10000/'; PyTorch takes
# seconds a call there, so a round takes minutes). Further arguments go to
# benchtable (e.g. -arena: each Go pass inside a tensor.Arena, as train runs
# the loss; -live 64: 64 MB of live data held, as a program holding its
# model and data). From the repository root.
set -eu
. "$(dirname "$0")/env.sh"
rounds=${1:-3}
pattern=${2:-'^ecl/.*/k(3|10)/n(100|10000)/'}
[ "$#" -ge 2 ] && shift 2 || shift "$#"
python=${PYTHON:-/usr/bin/python3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/benchtable" ./bench/benchtable
i=1
while [ "$i" -le "$rounds" ]; do
	echo "round $i of $rounds" >&2
	"$dir/benchtable" -run "$pattern" "$@" | awk '/^ecl(sb)?\// {print "go", $1, $2}' >>"$dir/times"
	"$python" bench/peer/ecl.py --run "$pattern" | awk '/^ecl(sb)?\// {print "torch", $1, $2}' >>"$dir/times"
	i=$((i + 1))
done
awk '
	function median(side, k,    n, i, j, t, a) {
		n = cnt[side, k]
		for (i = 1; i <= n; i++) a[i] = all[side, k, i]
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
		return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
	}
	{ key = $2; if (!(key in seen)) { seen[key] = 1; order[++n] = key }
	  k2 = $1 SUBSEP key
	  all[$1, key, ++cnt[$1, key]] = $3
	  if (!(k2 in best) || $3 < best[k2]) best[k2] = $3 }
	END {
		printf "%-34s %12s %12s %8s %12s %12s %8s\n", "workload", "go ms/op", "torch ms/op", "torch/go", "go median", "torch median", "med/med"
		for (i = 1; i <= n; i++) {
			k = order[i]; g = best["go" SUBSEP k]; t = best["torch" SUBSEP k]
			gm = median("go", k); tm = median("torch", k)
			printf "%-34s %12.3f %12.3f %7.1fx %12.3f %12.3f %7.1fx\n", k, g, t, (g > 0 ? t / g : 0), gm, tm, (gm > 0 ? tm / gm : 0)
		}
	}' "$dir/times"
