#!/usr/bin/env bash
# compare_outputs.sh OLD NEW: builds ecl from two checkouts (paths), runs
# the same eval, report, sweep, sim and features command lines with each on
# generated inputs, and diffs their standard output, standard error, exit
# status and every file they write. Prints one line per command and exits 1
# on any difference.
#
#	cmd/ecl/testdata/compare_outputs.sh /tmp/orig-cli .
set -u
old=$(cd "$1" && pwd) new=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for side in old new; do
	(cd "${!side}" && nice -n 15 go build -o "$work/ecl-$side" ./cmd/ecl) || exit 2
done
# The run records of ecl sim with its defaults, wherever NEW keeps them.
for testdata in "$new/experiment/report/testdata/sim-default" "$new/cmd/ecl/testdata/sim-default"; do
	[ -d "$testdata" ] && break
done

# Inputs: 300 three-class predictions, a second model's and labels, from a
# fixed linear congruential generator.
mkdir -p "$work/in"
awk 'BEGIN { s = 12345; srand(0)
	for (i = 0; i < 300; i++) {
		t = 0; for (k = 0; k < 3; k++) { s = (s * 1103515245 + 12345) % 2147483648; p[k] = 0.05 + s / 2147483648; t += p[k] }
		s = (s * 1103515245 + 12345) % 2147483648; y = int(3 * s / 2147483648)
		p[y] += 0.4; t += 0.4
		printf "%.6f,%.6f,%.6f\n", p[0]/t, p[1]/t, p[2]/t > "'"$work/in/p.csv"'"
		printf "%.6f,%.6f,%.6f\n", (p[0]+0.1)/(t+0.3), (p[1]+0.1)/(t+0.3), (p[2]+0.1)/(t+0.3) > "'"$work/in/q.csv"'"
		print y > "'"$work/in/y.csv"'"
	} }'
printf '{"command": "sim", "args": ["-runs", "1"], "vary": [{"flag": "shifts", "values": ["normal", "uniform"]}]}\n' > "$work/in/grid.json"

# Each case: a name, then the arguments; OUT is each side's output folder.
cases=(
	"eval-help|eval -h"
	"report-help|report -h"
	"sweep-help|sweep -h"
	"features-help|features -h"
	"eval-table|eval -probs IN/p.csv -labels IN/y.csv"
	"eval-json|eval -json -probs IN/p.csv -labels IN/y.csv -bins 10 -scheme mass"
	"eval-boot-compare|eval -probs IN/p.csv -probs2 IN/q.csv -labels IN/y.csv -bootstrap 40 -seed 3"
	"eval-convention|eval -convention torchmetrics -kde false -probs IN/p.csv -labels IN/y.csv"
	"eval-diagrams|eval -probs IN/p.csv -labels IN/y.csv -out OUT/diagrams -diagram-scale 0.5 -diagram-dpi 40"
	"eval-logits-refused|eval -logits -probs IN/p.csv -labels IN/y.csv"
	"eval-bad-bins|eval -bins 0 -probs IN/p.csv -labels IN/y.csv"
	"eval-too-many-bins|eval -bins 1000000 -probs IN/p.csv -labels IN/y.csv"
	"eval-bad-convention|eval -convention x -probs IN/p.csv -labels IN/y.csv"
	"eval-missing|eval -probs IN/p.csv"
	"report-text|report TESTDATA"
	"report-md-compare|report -format md -compare Uncal,ECL-toplabel -bootstrap 100 TESTDATA"
	"report-latex|report -format latex -shifts uniform TESTDATA"
	"report-csv|report -format csv -metrics ECE,NLL,Brier TESTDATA"
	"report-none-compare|report -format none -compare Uncal,ECL-canonical -metrics ECE TESTDATA"
	"report-out|report -out OUT/rep -figures svg -dpi 30 TESTDATA"
	"report-bad-metric|report -metrics ECE,XYZ TESTDATA"
	"report-bad-compare|report -compare CE,ECL-toplabel TESTDATA"
	"report-empty|report IN"
	"sim|sim -runs 2 -shifts uniform -points 60 -hidden 8 -base-epochs 2 -aux-epochs 1 -ecl-epochs 1 -quiet -jobs 1 -diagram-dpi 30 -out OUT/sim"
	"report-sim|report -out OUT/simrep -figures png -dpi 30 OUT/sim"
	"report-sim-compare|report -format md -compare Uncal,ECL-canonical OUT/sim"
	"sweep-list|sweep -vary seed=1:3 -vary shifts=normal,uniform -out OUT/sw sim -runs 1"
	"sweep-grid|sweep -grid IN/grid.json -vary seed=4,5 -out OUT/sw2"
	"sweep-emit-list|sweep -emit list -bin /bin/ecl -grid IN/grid.json -out OUT/sw3"
	"sweep-emit-slurm|sweep -emit slurm -bin /bin/ecl -vary seed=1:4 -parallel 2 -gpus 1 -partition p -out OUT/sw4 sim -runs 1"
	"sweep-emit-k8s|sweep -emit k8s -vary seed=1:2 -pvc claim -o OUT/job.yaml -out OUT/sw5 sim -runs 1"
	"sweep-bad-emit|sweep -emit pbs -bin /bin/ecl -vary seed=1:2 -out OUT/sw6 sim"
	"sweep-bad-run|sweep -run 9 -vary seed=1:2 -out OUT/sw7 sim"
	"sweep-bad-job|sweep -vary epochs=1 -out OUT/sw8 sim"
	"sweep-out-flag|sweep -out OUT/sw9 sim -out x"
	"report-sweep-missing|report -format none OUT/sw4"
	"features-missing|features -arch resnet18"
	"features-bad-arch|features -arch nope -weights w -data d -out o.npz"
	"features-bad-batch|features -arch resnet18 -weights w -data d -out o.npz -batch 0"
	"features-bad-crop|features -arch resnet18 -weights w -data d -out o.npz -crop 300"
	"features-no-data|features -arch resnet18 -weights IN/y.csv -data IN/nodir -out OUT/o.npz -quiet"
)
status=0
for c in "${cases[@]}"; do
	name=${c%%|*} args=${c#*|}
	for side in old new; do
		mkdir -p "$work/$side"
		a=${args//IN/$work/in}
		a=${a//OUT/$work/$side}
		a=${a//TESTDATA/$testdata}
		# shellcheck disable=SC2086
		(cd "$work/$side" && nice -n 15 "$work/ecl-$side" $a >"$work/$side.$name.stdout" 2>"$work/$side.$name.stderr"; echo "exit $?" >>"$work/$side.$name.stderr")
		sed -i "s#$work/$side#OUT#g; s#$work/ecl-$side#ECL#g" "$work/$side.$name.stdout" "$work/$side.$name.stderr"
	done
	d=""
	for s in stdout stderr; do
		cmp -s "$work/old.$name.$s" "$work/new.$name.$s" || d="$d $s"
	done
	if [ -z "$d" ]; then echo "same      $name"; else echo "DIFFERENT $name:$d"; diff "$work/old.$name.stdout" "$work/new.$name.stdout" | head -5; diff "$work/old.$name.stderr" "$work/new.$name.stderr" | head -5; status=1; fi
done
# Every file written, by content; paths in them made side-neutral, and the
# run records' wall time and code version (which differ run to run) masked.
for side in old new; do
	(cd "$work/$side" && find . -type f ! -name '*.pprof' | sort | while read -r f; do
		printf '%s %s\n' "$(sed -E "s#$work/$side#OUT#g; s#\"Wall\":[-+.e0-9]+#\"Wall\":0#; s#\"Code\":\"[^\"]*\"#\"Code\":\"\"#" "$f" | sha256sum | cut -c1-16)" "$f"
	done) >"$work/$side.files"
done
if cmp -s "$work/old.files" "$work/new.files"; then
	echo "same      files: $(wc -l <"$work/new.files") written files"
else
	echo "DIFFERENT files:"; diff "$work/old.files" "$work/new.files" | head -20; status=1
fi
exit $status
