//go:build cuda

package cuda_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ecl-go/ecl/tensor"
)

// TestKernelsRegistered: the device's bodies are found through tensor's
// kernel mechanism, and the soft-binning statistics on the device (its
// SoftAssign and BinStats) equal the CPU body's.
func TestKernelsRegistered(t *testing.T) {
	both(t, kernelsRegistered[float32], kernelsRegistered[float64])
}

func kernelsRegistered[T tensor.Float](t *testing.T) {
	dev := gpu[T](t)
	_, adam := tensor.Lookup(tensor.AdamKernel, dev)
	_, assign := tensor.Lookup(tensor.SoftAssignKernel, dev)
	_, stats := tensor.Lookup(tensor.BinStatsKernel, dev)
	_, assignBack := tensor.Lookup(tensor.SoftAssignBackwardKernel, dev)
	_, statsBack := tensor.Lookup(tensor.BinStatsBackwardKernel, dev)
	if !adam || !assign || !stats || !assignBack || !statsBack {
		t.Fatalf("registered on %s: adam %v, soft_assign %v, bin_stats %v, soft_assign_backward %v, bin_stats_backward %v", dev, adam, assign, stats, assignBack, statsBack)
	}
	_, bias := tensor.Lookup(tensor.Conv2DBiasKernel, dev)
	_, affine := tensor.Lookup(tensor.Conv2DAffineKernel, dev)
	if !bias || !affine {
		t.Fatalf("registered on %s: conv2d_bias %v, conv2d_affine %v", dev, bias, affine)
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

// TestSoftBinningBackward: the device's backward bodies of the soft
// assignment and the bin statistics against tensor's CPU loops, for the
// three paradigms' layouts (canonical [N, 1, K], class-wise [N, K, 1],
// top-label [N, 1, 1]), rows too wide to stage in shared memory in float64
// (2,600 anchors) and points of 17 coordinates (sums kept in memory, not
// registers) on 0, 1, 7 and many samples, and through
// SoftBinStatsBackward.
func TestSoftBinningBackward(t *testing.T) {
	both(t, softBinningBackward[float32], softBinningBackward[float64])
}

func softBinningBackward[T tensor.Float](t *testing.T) {
	dev := gpu[T](t)
	r := rand.New(rand.NewPCG(18, 18))
	for _, c := range []struct{ g, e, d, b int }{{1, 3, 3, 15}, {1, 10, 10, 55}, {10, 1, 1, 15}, {1, 1, 1, 15}, {1, 2, 2, 2600}, {1, 17, 17, 15}} {
		for _, n := range []int{0, 1, 7, rows(dev, 20_011)} {
			x := tensor.Reshape(probs[T](r, n*c.g, c.e), n, c.g, c.e)
			p := tensor.RandUniform[T](r, 0, 1, n, c.g, c.d)
			a := make([]float64, c.b*c.e)
			for i := range a {
				a[i] = r.Float64()
			}
			sb := tensor.SoftBins{Anchors: a, Dim: c.e, Tau: -1 / (math.Log(0.9) * float64(c.b*c.b))}
			what := fmt.Sprintf("N=%d G=%d E=%d D=%d B=%d", n, c.g, c.e, c.d, c.b)
			w := tensor.SoftAssign(x, sb)
			dw := tensor.RandNormal[T](r, 0, 1, n, c.g, c.b)
			sameDefault(t, "SoftAssignBackward "+what, tensor.SoftAssignBackward(tensor.To(dw, dev), tensor.To(w, dev), tensor.To(x, dev), sb), tensor.SoftAssignBackward(dw, w, x, sb))
			ds := tensor.RandNormal[T](r, 0, 1, c.g, c.b, c.d+2)
			gw, gp := tensor.BinStatsBackward(tensor.To(ds, dev), tensor.To(w, dev), tensor.To(p, dev))
			ww, wp := tensor.BinStatsBackward(ds, w, p)
			sameDefault(t, "BinStatsBackward dw "+what, gw, ww)
			sameDefault(t, "BinStatsBackward dp "+what, gp, wp)
			// Through SoftBinStatsBackward the device recomputes the
			// assignment with its own kernel (tested against the CPU's
			// above): the reference is the CPU's backward pass from that
			// same assignment.
			gx, gp2 := tensor.SoftBinStatsBackward(tensor.To(ds, dev), tensor.To(x, dev), tensor.To(p, dev), sb)
			wd := tensor.To(tensor.SoftAssign(tensor.To(x, dev), sb), tensor.CPU[T]{})
			rw, rp := tensor.BinStatsBackward(ds, wd, p)
			sameDefault(t, "SoftBinStatsBackward dx "+what, gx, tensor.SoftAssignBackward(rw, wd, x, sb))
			sameDefault(t, "SoftBinStatsBackward dp "+what, gp2, rp)
		}
	}
}
