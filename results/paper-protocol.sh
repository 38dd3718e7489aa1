#!/bin/sh
# The paper's LeNet-5 protocol for issue 30 (docs/digits.md): 100 base and
# 100 fine-tuning epochs, 10 seeds, README's subsets, the default head and
# the PseudoCal head, TS and PseudoCal beside; resumable (rerun it after an
# interruption; finished runs are reused, a killed one resumes from its
# last checkpoint). From the repository root, with out/ecl-paper built by
# go build -o out/ecl-paper ./cmd/ecl.
set -e
for t in mnist usps; do
	out/ecl-paper digits -data "${ECL_DATA:-../shared/datasets}" -target $t -runs 10 -epochs 100 -ecl-epochs 100 \
		-lambda adaptive -methods ts,pseudocal -aux-fit plain,pseudocal -base-cache out/base100 \
		-out results/paper-protocol/$t -quiet
done
