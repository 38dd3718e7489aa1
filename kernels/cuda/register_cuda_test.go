//go:build cuda

package cuda_test

import (
	"math/rand/v2"
	"testing"

	"github.com/ecl-go/ecl/tensor"
)

// TestKernelsRegistered: the device's bodies are found through tensor's
// kernel mechanism, and the soft-binning statistics on the device (its
// AnchorAssign and BinSums) equal the CPU body's.
func TestKernelsRegistered(t *testing.T) {
	both(t, kernelsRegistered[float32], kernelsRegistered[float64])
}

func kernelsRegistered[T tensor.Float](t *testing.T) {
	dev := gpu[T](t)
	_, adam := tensor.Lookup(tensor.AdamKernel, dev)
	_, assign := tensor.Lookup(tensor.SoftAssignKernel, dev)
	_, stats := tensor.Lookup(tensor.BinStatsKernel, dev)
	if !adam || !assign || !stats {
		t.Fatalf("registered on %s: adam %v, soft_assign %v, bin_stats %v", dev, adam, assign, stats)
	}
	r := rand.New(rand.NewPCG(17, 17))
	for _, c := range []struct{ g, e, d, b int }{{1, 3, 3, 10}, {4, 1, 1, 15}} {
		x := tensor.Reshape(probs[T](r, 60*c.g, c.e), 60, c.g, c.e)
		p := tensor.RandUniform[T](r, 0, 1, 60, c.g, c.d)
		a := make([]float64, c.b*c.e)
		for i := range a {
			a[i] = r.Float64()
		}
		sb := tensor.SoftBins{Anchors: a, Dim: c.e, Tau: 0.05}
		sameDefault(t, "SoftBinStats", tensor.SoftBinStats(tensor.To(x, dev), tensor.To(p, dev), sb), tensor.SoftBinStats(x, p, sb))
	}
}
