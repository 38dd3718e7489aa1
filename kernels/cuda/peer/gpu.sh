#!/usr/bin/env bash
# Runs the CUDA backend's checks and benchmarks on a GPU machine (CUDA
# driver, PyTorch; no Go needed), from the repository root:
#
#   kernels/cuda/peer/gpu.sh BIN OUT [PARTS]
#
# BIN holds what was built on a Go machine: kernels.test
# (go test -c -tags cuda ./kernels/cuda), ecl (go build -tags cuda
# ./cmd/ecl) and data/ (the digit files, for the digits part). OUT receives
# test.txt, go.txt, peer.txt, train.prof (a CPU profile of the ResNet-20
# training step), digits.txt and digits-{cuda,cpu}.json (a LeNet-5 →MNIST
# seed on each device) and sim.txt (one ecl sim seed on each device); join
# go.txt and peer.txt with ratios.py. PARTS is any of test bench bench80
# peer profile ncu digits sim (default: all but bench80). BENCH (a -test.bench
# pattern) limits bench; PROF_BENCH picks profile's benchmark; bench80 runs the GEMM rows again with the compute_80
# modules (ECL_CUDA_PTX=compute_80) into go80.txt, to compare the sm_90
# builds with them; PEER (peer.py's parts, e.g. "gemm conv") limits peer.
set -uo pipefail
bin=$(realpath "$1") out=$(realpath "$2")
parts=${3:-test bench peer profile digits sim}
root=$(pwd)
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader
for p in $parts; do
	case $p in
	test)
		(cd kernels/cuda && timeout 300 "$bin/kernels.test" -test.v -test.count=1 >"$out/test.txt" 2>&1)
		echo "test rc=$?: $(grep -c -- '--- PASS' "$out/test.txt") passed, $(grep -c -- '--- FAIL' "$out/test.txt") failed, $(grep -c -- '--- SKIP' "$out/test.txt") skipped (tests and subtests)"
		grep -E -A3 -- '--- FAIL|^panic' "$out/test.txt" | head -30
		;;
	bench)
		(cd kernels/cuda && timeout 300 "$bin/kernels.test" -test.run '^$' -test.bench "${BENCH:-.}" -test.benchtime 0.3s -test.benchmem >"$out/go.txt" 2>&1)
		echo "bench rc=$?"
		;;
	bench80)
		(cd kernels/cuda && ECL_CUDA_PTX=compute_80 timeout 120 "$bin/kernels.test" -test.run '^$' -test.bench "${BENCH80:-GEMM}" -test.benchtime 0.3s -test.benchmem >"$out/go80.txt" 2>&1)
		echo "bench80 rc=$?"
		;;
	peer)
		PYTHONUNBUFFERED=1 timeout 300 python3 kernels/cuda/peer/peer.py ${PEER:-} >"$out/peer.txt" 2>&1
		echo "peer rc=$?"
		;;
	profile)
		(cd kernels/cuda && timeout 120 "$bin/kernels.test" -test.run '^$' -test.bench "${PROF_BENCH:-TrainStep/resnet20}" -test.benchtime 3s -test.cpuprofile "$out/train.prof" 2>&1 | grep Benchmark)
		echo "profile rc=$?"
		;;
	ncu)
		# Each kernel's GPU time over the first launches of a benchmark
		# (NCU_BENCH, default the ResNet-20 step: its warm-up step and the
		# next ones), one metric, no replay of sections, into
		# ncu-<benchmark>.csv; summarise with ncu.py.
		nb=${NCU_BENCH:-TrainStep/resnet20}
		(cd kernels/cuda && timeout 150 ncu --clock-control none --metrics gpu__time_duration.sum -c "${NCU_LAUNCHES:-600}" --csv \
			"$bin/kernels.test" -test.run '^$' -test.bench "$nb" -test.benchtime 3x >"$out/ncu-${nb//\//-}.csv" 2>&1)
		echo "ncu $nb rc=$?"
		;;
	digits)
		for dev in cuda cpu; do
			start=$(date +%s%N)
			timeout 170 "$bin/ecl" digits -data "$bin/data" -target mnist -runs 1 -device $dev -out "/tmp/digits-$dev" >>"$out/digits.txt" 2>&1
			echo "digits -device $dev rc=$? wall $((($(date +%s%N) - start) / 1000000)) ms" | tee -a "$out/digits.txt"
			cp "/tmp/digits-$dev/results.json" "$out/digits-$dev.json"
		done
		;;
	sim)
		for dev in cuda cpu; do
			start=$(date +%s%N)
			timeout 90 "$bin/ecl" sim -runs 1 -device $dev -out "/tmp/sim-$dev" -quiet >>"$out/sim.txt" 2>&1
			echo "sim -device $dev rc=$? wall $((($(date +%s%N) - start) / 1000000)) ms" | tee -a "$out/sim.txt"
		done
		;;
	esac
done
[ -s "$out/go.txt" ] && [ -s "$out/peer.txt" ] && python3 "$root/kernels/cuda/peer/ratios.py" "$out/go.txt" "$out/peer.txt" | tee "$out/ratios.md"
[ -s "$out/go80.txt" ] && [ -s "$out/peer.txt" ] && echo "compute_80 modules:" && python3 "$root/kernels/cuda/peer/ratios.py" "$out/go80.txt" "$out/peer.txt"
exit 0
