#!/bin/sh
# The fixed-weight pilot of docs/digits.md, "The PseudoCal head under a
# fixed loss weight": the pilot's settings (results/heads-pilot) with
# -lambda fixed (λ_ce·CE + ECL) at λ_ce 1, 0.1 and 0.001 (ECL nearly
# alone), the plain and the PseudoCal head, and at 0.001 the ATC head. Run from the repository root with out/ecl built by
# go build -o out/ecl ./cmd/ecl; resumable.
set -e
E="out/ecl digits -data ${ECL_DATA:-../shared/datasets} -lambda fixed -methods ts,pseudocal -base-cache out/base -runs ${RUNS:-2} -quiet"
for t in mnist usps; do
	for ce in 1 0.1; do
		/usr/bin/time -f "%e s wall, %M KB" $E -aux-fit plain,pseudocal -target $t -lambda-ce $ce -out results/heads-fixed/$t-ce$ce
	done
	/usr/bin/time -f "%e s wall, %M KB" $E -aux-fit plain,pseudocal,atc -target $t -lambda-ce 0.001 -out results/heads-fixed/$t-ce0.001
done
