#!/bin/sh
# images.sh runs the input-pipeline rows of go run ./bench/benchtable and of
# bench/peer/images.py (torchvision's ImageFolder and DataLoader with PIL,
# num_workers 2) alternately on the same JPEGs, ROUNDS times each, and
# prints per row the best time of each side and the ratio torchvision/Go
# (above 1: Go is faster); then how closely the two sides' tensors agree
# (bench/imagetensors and bench/peer/images_agree.py, on the first
# AGREE images of each size).
#
#   bench/peer/images.sh [ROUNDS] [IMAGES]
#
# Defaults: 3 rounds, 200 JPEGs per row (AGREE=50 by default). Each Go
# round is benchtable's mean over about a second of passes, each
# torchvision round the median of 3 passes after a warm-up pass. From the
# repository root.
set -eu
. "$(dirname "$0")/env.sh"
rounds=${1:-3}
count=${2:-200}
agree=${AGREE:-50}
python=${PYTHON:-/usr/bin/python3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/benchtable" ./bench/benchtable
go build -o "$dir/imagetensors" ./bench/imagetensors
i=1
while [ "$i" -le "$rounds" ]; do
	echo "round $i of $rounds" >&2
	"$dir/benchtable" -run '^images/' -images "$count" -image-dir "$dir/jpeg" | awk '/^images\// {print "go", $1, $2}' >>"$dir/times"
	"$python" bench/peer/images.py --dir "$dir/jpeg" | awk '/^images\// {print "torchvision", $1, $2}' >>"$dir/times"
	i=$((i + 1))
done
awk -v n="$count" '
	{ key = $2; if (!(key in seen)) { seen[key] = 1; order[++k] = key }
	  k2 = $1 SUBSEP key
	  if (!(k2 in best) || $3 < best[k2]) best[k2] = $3 }
	END {
		printf "%-34s %12s %12s %14s %14s %8s\n", "workload", "go ms/pass", "tv ms/pass", "go images/s", "tv images/s", "tv/go"
		for (i = 1; i <= k; i++) {
			r = order[i]; g = best["go" SUBSEP r]; t = best["torchvision" SUBSEP r]
			printf "%-34s %12.1f %12.1f %14.1f %14.1f %7.2fx\n", r, g, t, n / g * 1000, n / t * 1000, (g > 0 ? t / g : 0)
		}
	}' "$dir/times"
for size in "$dir"/jpeg/*; do
	"$dir/imagetensors" -data "$size" -max "$agree" -out "$dir/x.npz" >/dev/null
	echo "agreement, $(basename "$size"):"
	"$python" bench/peer/images_agree.py --npz "$dir/x.npz" --data "$size"
done
