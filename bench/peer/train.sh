#!/bin/sh
# Alternates the Go rows of bench/benchtable with the PyTorch CPU peer
# (bench/peer/train.py) for several rounds in one run, then prints each
# row's times and the ratios peer/Go of the means, of the medians and of
# the best rounds (above 1: the Go engine is faster).
#
#   bench/peer/train.sh [ROUNDS [REGEXP]]
#
# from the repository root; ROUNDS defaults to 3, REGEXP (rows by name) to
# the LeNet-5 and ResNet-20 steps and the convolution layers
# ('train-step|conv2d'; 'densenet40' adds ~10 s per side and round).
set -eu
. "$(dirname "$0")/env.sh"
rounds=${1:-3}
run=${2:-'lenet5-train-step|resnet20-train-step|conv2d'}
py=${PYTHON:-/usr/bin/python3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/benchtable" ./bench/benchtable
for r in $(seq "$rounds"); do
	echo "round $r/$rounds" >&2
	"$dir/benchtable" -run "$run" | awk -v r="$r" '$2 ~ /^[0-9.]+$/ {print "go", r, $1, $2}' >>"$dir/rows"
	"$py" bench/peer/train.py -run "$run" | awk -v r="$r" '$2 ~ /^[0-9.]+$/ {print "peer", r, $1, $2}' >>"$dir/rows"
done
printf "%-34s  %-28s  %-28s  %s\n" "row (ms/op, per round)" go peer "peer/go: of the means, of the medians, best/best"
awk '
	function median(list,    v, k, i, j, x) {
		k = split(list, v, " ")
		for (i = 2; i <= k; i++) {
			x = v[i] + 0
			for (j = i - 1; j >= 1 && v[j] + 0 > x; j--) v[j + 1] = v[j]
			v[j + 1] = x
		}
		return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
	}
	{
		t[$1, $3] = t[$1, $3] " " sprintf("%.2f", $4); s[$1, $3] += $4; n[$1, $3]++; names[$3] = 1
		if (!(($1, $3) in b) || $4 < b[$1, $3]) b[$1, $3] = $4
	}
	END {
		for (k in names) if (n["go", k] && n["peer", k])
			printf "%-34s  %-28s  %-28s  %.2f  %.2f  %.2f\n", k, t["go", k], t["peer", k],
				(s["peer", k] / n["peer", k]) / (s["go", k] / n["go", k]),
				median(t["peer", k]) / median(t["go", k]), b["peer", k] / b["go", k]
	}' "$dir/rows" | sort
