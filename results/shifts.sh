#!/bin/sh
# The graded-shift study of docs/shifts.md: LeNet-5 on MNIST and on
# Fashion-MNIST, targets made from each test split by rotation (13 angles)
# and eight corruptions at severities 1–5, every method, 5 seeds.
#
# Resumable: a (seed, target) run's file is keyed by the configuration
# without the lists of transforms, angles, severities and seeds, so every
# invocation reuses the runs any earlier one finished. The first pass runs
# seeds 1–3 on a coarse grid (angles 0–180 by 45, severities 1, 3, 5) so that
# a partial run covers every transform; the second fills in the grid and
# the seeds.
#
# DATASETS (default "mnist fashion") picks the data sets. DATA holds mnist/ and fashion/ (ecl data fetch -domains mnist,fashion;
# add -from /usr/share/datasets/fashion-mnist for Debian's copy).
set -e
DATA=${DATA:-data}
ECL=${ECL:-ecl}
CACHE=${CACHE:-.scratch/shifts-cache}
JOBS=${JOBS:-2}
study() {
	ds=$1
	shift
	$ECL shifts -data "$DATA" -dataset "$ds" -epochs 10 \
		-max-source 10000 -max-target 2000 -max-test 1000 \
		-transforms rotate,shot-noise,impulse-noise,brightness,translate,shear,scale,motion-blur,zigzag \
		-base-cache "$CACHE/base" -target-cache "$CACHE/targets" -jobs "$JOBS" \
		-out "results/shifts/$ds" "$@"
}
for ds in ${DATASETS:-mnist fashion}; do
	(study $ds -runs 3 -angles 0,45,90,135,180 -severities 1,3,5 && study $ds -runs 5) > "results/shifts/$ds.log" &
done
wait
