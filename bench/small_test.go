package bench

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkSmallStep times a training step of each stage of ecl sim and
// reports the bytes and allocations of one step, and the process CPU time
// per step (cpu-ns/op, both cores and the collector counted).
func BenchmarkSmallStep(b *testing.B) {
	for _, c := range SmallCases() {
		b.Run(c.Name, func(b *testing.B) {
			b.ReportAllocs()
			start := processCPU()
			c.Run(b.N)
			reportCPU(b, start)
		})
	}
}

// BenchmarkECEKDE times the ECE^KDE metric of ecl sim on n = 400 (the
// paper recipe's domains) and 800 samples.
func BenchmarkECEKDE(b *testing.B) {
	for _, n := range []int{400, 800} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			probs, labels := KDEInput(n)
			b.ReportAllocs()
			start := processCPU()
			for b.Loop() {
				KDE(probs, labels)
			}
			reportCPU(b, start)
		})
	}
}

// TestSmallCasesRun trains every stage for two steps, so that a broken case
// fails the ordinary test run, and checks that one step takes well under a
// second (the study runs 64,000 of them).
func TestSmallCasesRun(t *testing.T) {
	for _, c := range SmallCases() {
		start := time.Now()
		c.Run(2)
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s: two steps took %v", c.Name, d)
		}
	}
}
