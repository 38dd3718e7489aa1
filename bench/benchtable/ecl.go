package main

import (
	"fmt"
	"regexp"

	"github.com/ecl-go/ecl/bench"
)

// eclRows prints the ECL loss rows selected by re, run on o, each pass
// inside a tensor.Arena if arena is set.
func eclRows(re *regexp.Regexp, o bench.On, arena bool) {
	for _, c := range bench.ECLCases() {
		if !re.MatchString(c.Name()) {
			continue
		}
		c.Arena = arena
		r := bench.MeasureECL(c, o)
		fmt.Printf("%-34s %10.3f %9s  (%.1f ns per sample, %.1f MB and %d allocations per call)\n",
			r.Name, float64(r.PerOp.Nanoseconds())/1e6, "", r.NanosPerInput, float64(r.BytesPerOp)/1e6, r.AllocsPerOp)
		if c.N >= 1_000_000 && o.Wait == nil { // the CPU's memory-bandwidth floor beside it
			per, rate := bench.MeasureInputPass(c)
			fmt.Printf("%-34s %10.3f %9s  (one pass over the inputs, %.1f GB/s; the loss is %.1f of it)\n",
				"  input pass", float64(per.Nanoseconds())/1e6, "", rate, float64(r.PerOp)/float64(per))
		}
	}
}
