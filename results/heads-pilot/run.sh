#!/bin/sh
# The pilot of docs/digits.md, "Heads that see the shift": run from the
# repository root; out/ecl built from this commit with go build -o out/ecl ./cmd/ecl.
set -e
E="out/ecl digits -data ${ECL_DATA:-../shared/datasets} -lambda adaptive -methods ts,pseudocal -base-cache out/base -runs ${RUNS:-2}"
for t in mnist usps; do
	/usr/bin/time -f "%e s wall, %M KB" $E -target $t -aux-data heldout -aux-fit plain,iw,pseudocal -out results/heads-pilot/$t-heldout
	/usr/bin/time -f "%e s wall, %M KB" $E -target $t -aux-data train -aux-fit plain,crossfit -out results/heads-pilot/$t-train
done
