package bench

import (
	"strings"
	"testing"

	"github.com/ecl-go/ecl/tensor"
)

// The peak rows exist exactly where AVX-512 does, one and all threads for
// both precisions, and count 24 vector multiply-adds a round: 768 float32
// operations (16 lanes, 2 each), 384 float64.
func TestPeakCases(t *testing.T) {
	cs := peakCases(2)
	if !tensor.HasAVX512() {
		if len(cs) != 0 {
			t.Fatalf("%d peak rows without AVX-512", len(cs))
		}
		return
	}
	want := map[string]float64{
		"fma-peak/float32/threads1": 768 * fmaRounds, "fma-peak/float32/threads2": 2 * 768 * fmaRounds,
		"fma-peak/float64/threads1": 384 * fmaRounds, "fma-peak/float64/threads2": 2 * 384 * fmaRounds,
	}
	if len(cs) != len(want) {
		t.Fatalf("%d peak rows, want %d", len(cs), len(want))
	}
	for _, c := range cs {
		if c.Flops != want[c.Name] {
			t.Errorf("%s: %g flops, want %g", c.Name, c.Flops, want[c.Name])
		}
		c.Setup()() // runs on registers alone: returns, touching no memory
	}
	for _, c := range peakCases(1) {
		if !strings.HasSuffix(c.Name, "threads1") {
			t.Errorf("one thread: row %s", c.Name)
		}
	}
}
