package bench

import (
	"testing"
	"time"
)

// BenchmarkSmallStep times a training step of each stage of ecl sim and
// reports the bytes and allocations of one step.
func BenchmarkSmallStep(b *testing.B) {
	for _, c := range SmallCases() {
		b.Run(c.Name, func(b *testing.B) {
			b.ReportAllocs()
			c.Run(b.N)
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
