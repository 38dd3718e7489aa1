package main

import (
	"fmt"

	"github.com/ecl-go/ecl/bench"
)

// calibRows prints the calibration rows that skip does not leave out: a
// fit or the metrics of ecl eval per call, with the bytes and allocations
// of a call.
func calibRows(skip func(string) bool) {
	for _, c := range bench.CalibCases() {
		if skip(c.Name()) {
			continue
		}
		r := bench.MeasureCalib(c)
		fmt.Printf("%-34s %10.3f %9s  (%.1f MB and %d allocations per call)\n", c.Name(), float64(r.NsPerOp())/1e6, "", float64(r.AllocedBytesPerOp())/1e6, r.AllocsPerOp())
	}
}
