#!/bin/sh
# The all-image runs of issue 30 (docs/digits.md): the paper's LeNet-5
# protocol of paper-protocol.sh (100 base and 100 fine-tuning epochs, the
# default and the PseudoCal head, TS and PseudoCal beside) on every image
# of MNIST, USPS and the synthetic SVHN stand-in, 3 seeds; resumable
# (rerun it after an interruption). From the repository root, with
# out/ecl-paper built by go build -o out/ecl-paper ./cmd/ecl.
set -e
for t in usps mnist; do
	out/ecl-paper digits -data "${ECL_DATA:-../shared/datasets}" -target $t -runs 3 -epochs 100 -ecl-epochs 100 \
		-max-source 0 -max-target 0 -max-test 0 \
		-lambda adaptive -methods ts,pseudocal -aux-fit plain,pseudocal -base-cache out/base100 \
		-out results/paper-protocol-all/$t -quiet
done
