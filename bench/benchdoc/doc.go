// Command benchdoc writes the tables of current figures in bench/README.md
// and kernels/cuda/README.md from the raw outputs of the benchmark runs, so
// that every figure in them is read from a committed file, never typed.
//
//	go run ./bench/benchdoc                # rewrite the tables
//	go run ./bench/benchdoc -check         # exit 1 when a README's table is stale
//	go run ./bench/benchdoc [-check] INDEX...
//
// Without arguments it takes the two indexes, bench/results/current.json and
// kernels/cuda/results/current.json (from the repository root). An index is
// JSON naming its README (relative to the index's folder), the machines, each
// a table, and the rows:
//
//	{
//	  "readme": "../README.md",
//	  "machines": [{"id": "xeon", "name": "…", "note": "…"}],
//	  "rows": [{
//	    "machine": "xeon", "workload": "LeNet-5 training step", "unit": "ms",
//	    "date": "2026-11-27", "command": "bench/peer/train.sh 3 'lenet5-train-step'",
//	    "peer": "PyTorch", "target": 2, "issue": "#28",
//	    "ours":   {"file": "2026-11-27d/train.txt", "rows": ["lenet5-train-step/float32"], "field": "1-3", "of": "mean"},
//	    "theirs": {"file": "2026-11-27d/train.txt", "rows": ["lenet5-train-step/float32"], "field": "4-6", "of": "mean"}
//	  }]
//	}
//
// A pick ("ours", "theirs") reads a raw file under the index's folder, in a
// folder whose name starts with the row's date. Its lines are split at white
// space; a line is read when its first words are one of "rows", and its
// later words are numbered from 1. "field" is a number ("2"), a range
// ("1-3"), or a unit word such as "ns/op", which names the number just
// before it (Go benchmark lines). "of" reduces several numbers (several
// fields, several matching lines, several "rows"): "mean", "median" (of an
// even count, the mean of the middle two) or "min"; without it exactly one
// number must be found; the table says which ("652 ms, median"). "unit" is the raw number's time unit
// when it differs from the row's ("ns" for ns/op). A row's unit is a time
// (ns, µs, ms, s) or a rate (anything ending in "/s"); the ratio is the
// peer's time over ours, or our rate over the peer's, so that above 1 this
// engine is faster. "target" is the ratio an issue asks for; the table says
// whether it is met.
//
// The README holds the tables between the lines <!-- benchdoc:begin --> and
// <!-- benchdoc:end -->, one table per machine in the index's order; the text
// around them is left as it is. TestReadmesCurrent fails when a committed
// README's tables differ from what the raw files give.
package main
