#!/bin/sh
# calib.sh: the PyTorch / scikit-learn peer of `ecl calibrate`'s fits
# (bench/peer/calib.py) on an instance of go run ./bench/calibdata, with the
# machine it ran on; given a built ecl binary, ecl calibrate and the peer
# alternately.
#
#	bench/peer/calib.sh DIR [REPS [METHODS [ECL]]]
#
# DIR holds source.npz and target.npz (go run ./bench/calibdata -k 100
# -n 10000 -out DIR); REPS defaults to 5, METHODS to
# ts,vs,ms,dirichlet,isotonic,hist. Environment: THREADS (default 2) goes to
# calib.py --threads, WARMUP (default 5) to --warmup (the most warm-up fits),
# PYTHON names the interpreter (default /usr/bin/python3).
#
# Without ECL: one calib.py run of REPS timed fits per method after its
# warm-ups, printing its "peer M fit_s=… best_s=…" lines.
#
# With ECL (go build -o /tmp/ecl ./cmd/ecl): REPS rounds, each one
#	ECL calibrate -source DIR/source.npz:logits -source-labels DIR/source.npz:labels
#	    -target DIR/target.npz:logits -target-labels DIR/target.npz:labels
#	    -method METHODS -bootstrap 0 -estimate-folds 1 -no-diagrams -jobs 1 -out TMP
# then calib.py --reps 1 (its warm-ups each round: WARMUP=1 keeps only the
# first fit, untimed, when fits take minutes), then per method the
# seconds of each round, the best and median of each side and the ratio
# peer/ecl of the medians (above 1: ecl is faster). ecl's seconds are its
# stderr line "ecl calibrate: M done in X s": the fit AND that method's
# target and source metrics and estimates (importance-weighted, pseudo-
# target), printed to 0.1 s; the peer's are the fit alone. The ratio
# therefore flatters the peer, and under ~1 s it is meaningless.
#
# The header gives the load average: on a machine busier than its nproc,
# torch's two OpenMP threads wait for each other at every operation and the
# peer slows by an order of magnitude (THREADS=1 avoids it); its figures
# then do not stand for the peer.
#
# OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE, which this workplace's environment
# sets, are unset so that the BLAS runs at full strength; calib.py's header
# names the OpenBLAS kernel core torch's matrix products (ms, dirichlet)
# run on and warns when OpenBLAS 0.3.21 fell back to its SSE kernels on a
# CPU it does not know: then pass CORETYPE=SkylakeX (AVX-512) or Haswell
# (AVX2), which becomes OPENBLAS_CORETYPE.
set -eu
[ "$#" -ge 1 ] || { echo "usage: calib.sh DIR [REPS [METHODS [ECL]]]" >&2; exit 2; }
dir=$1
reps=${2:-5}
methods=${3:-ts,vs,ms,dirichlet,isotonic,hist}
ecl=${4:-}
py=${PYTHON:-/usr/bin/python3}
threads=${THREADS:-2}
warmup=${WARMUP:-5}
here=$(dirname "$0")
for f in source.npz target.npz; do
	[ -f "$dir/$f" ] || { echo "calib.sh: $dir/$f missing (go run ./bench/calibdata -out $dir)" >&2; exit 2; }
done
. "$(dirname "$0")/env.sh"
if [ -n "${CORETYPE:-}" ]; then export OPENBLAS_CORETYPE="$CORETYPE"; fi
echo "# $(lscpu | sed -n 's/^Model name:[[:space:]]*//p'), nproc $(nproc), load average $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -z "$ecl" ]; then
	exec "$py" "$here/calib.py" "$dir" --reps "$reps" --methods "$methods" --threads "$threads" --warmup "$warmup"
fi
[ -x "$ecl" ] || { echo "calib.sh: $ecl is not an executable (go build -o /tmp/ecl ./cmd/ecl)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for r in $(seq "$reps"); do
	echo "round $r/$reps" >&2
	"$ecl" calibrate -source "$dir/source.npz:logits" -source-labels "$dir/source.npz:labels" \
		-target "$dir/target.npz:logits" -target-labels "$dir/target.npz:labels" \
		-method "$methods" -bootstrap 0 -estimate-folds 1 -no-diagrams -jobs 1 -out "$tmp/out" \
		>"$tmp/ecl.stdout" 2>"$tmp/ecl.stderr" || { cat "$tmp/ecl.stderr" >&2; exit 1; }
	awk -v r="$r" '/^ecl calibrate: .* done in / && $3 != "uncal" {print "ecl", r, $3, $(NF-1)}' "$tmp/ecl.stderr" >>"$tmp/rows"
	"$py" "$here/calib.py" "$dir" --reps 1 --methods "$methods" --threads "$threads" --warmup "$warmup" >"$tmp/peer.out"
	[ "$r" -eq 1 ] && grep '^#' "$tmp/peer.out"
	grep '^peer ' "$tmp/peer.out"
	awk -v r="$r" '$1 == "peer" {sub("fit_s=", "", $3); print "peer", r, $2, $3}' "$tmp/peer.out" >>"$tmp/rows"
done
printf "%-10s  %-36s  %-36s  %s\n" method "ecl s per round (best, median)" "peer s per round (best, median)" "peer/ecl"
awk '
	function median(side, m,   a, i, j, t, c) {
		c = n[side, m]
		for (i = 1; i <= c; i++) a[i] = v[side, m, i]
		for (i = 2; i <= c; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
		return c % 2 ? a[(c+1)/2] : (a[c/2] + a[c/2+1]) / 2
	}
	{
		if (!(($3) in seen)) { seen[$3] = 1; order[++k] = $3 }
		v[$1, $3, ++n[$1, $3]] = $4; s[$1, $3] = s[$1, $3] " " $4
		if (!(($1, $3) in best) || $4 < best[$1, $3]) best[$1, $3] = $4
	}
	END {
		for (i = 1; i <= k; i++) {
			m = order[i]
			if (!n["ecl", m] || !n["peer", m]) continue
			me = median("ecl", m); mp = median("peer", m)
			printf "%-10s  %-36s  %-36s  %s\n", m,
				substr(s["ecl", m], 2) sprintf(" (%g, %g)", best["ecl", m], me),
				substr(s["peer", m], 2) sprintf(" (%.4g, %.4g)", best["peer", m], mp),
				(me > 0 ? sprintf("%.2f", mp / me) : "- (ecl 0.0 s)")
		}
	}' "$tmp/rows"
