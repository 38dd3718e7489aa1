#!/bin/sh
# The graded-shift study of docs/shifts.md: LeNet-5 on MNIST and on
# Fashion-MNIST, targets made from each test split by rotation (13 angles)
# and eight corruptions at severities 1–5, every method, 5 seeds. Resumable:
# run again with the same flags and finished (seed, target) runs are reused.
# DATA holds mnist/ and fashion/ (ecl data fetch -domains mnist,fashion;
# -from /usr/share/datasets/fashion-mnist for Debian's copy).
set -e
DATA=${DATA:-data}
ECL=${ECL:-ecl}
CACHE=${CACHE:-.scratch/shifts-cache}
for ds in mnist fashion; do
	$ECL shifts -data "$DATA" -dataset $ds -runs 5 -epochs 10 \
		-max-source 10000 -max-target 2000 -max-test 1000 \
		-transforms rotate,shot-noise,impulse-noise,brightness,translate,shear,scale,motion-blur,zigzag \
		-base-cache "$CACHE/base" -target-cache "$CACHE/targets" \
		-out results/shifts/$ds &
done
wait
