package tensor

import (
	"math"
	"slices"
	"testing"
)

// topLabelInputs are probabilities s [N, K] (softmax of normal logits, but
// a tie for the maximum in row 1 and, if bad, NaNs and an infinite value)
// and values p [N] in [0, 1].
func topLabelInputs[T Float](seed uint64, n, k int, bad bool) (s, p *Tensor[T]) {
	r := newRNG(seed)
	s = Convert[T](Softmax(RandNormal[float64](r, 0, 2, n, k), 1))
	p = Convert[T](RandUniform[float64](r, 0, 1, n))
	if n > 1 && k > 1 {
		sd := HostData(s)
		sd[k], sd[k+k-1] = 0.99, 0.99 // row 1: the first and last elements tie for the maximum
	}
	if bad && n > 40 {
		HostData(s)[7*k+k-1] = T(math.NaN())
		HostData(s)[20*k] = T(math.Inf(1))
		HostData(p)[33] = T(math.NaN())
	}
	return s, p
}

// TestTopLabelStatsMatchesComposed checks the fused CPU bodies against the
// composed versions (Extremes, SoftBinStats and ExtremeGrad), which run
// the same sums in the same order: equal to the bit, in float32 (the
// vector kernels where the CPU has them) and float64, over one chunk and
// several blocks and chunks, K below and above the vector maximum's 16
// and wide rows (K = 1,000), on one and two cores, and in an arena whose
// recycled buffers hold garbage.
func TestTopLabelStatsMatchesComposed(t *testing.T) {
	anchors := make([]float64, 15)
	for j := range anchors {
		anchors[j] = (2*float64(j) + 1) / 30
	}
	sb := SoftBins{Anchors: anchors, Dim: 1, Tau: 0.0422}
	cases := []struct {
		name string
		n, k int
		bad  bool
	}{
		{"k3", 1000, 3, false},
		{"k10-tail", 37, 10, false},
		{"k1", 50, 1, false},
		{"k17", 300, 17, false},
		{"chunks", 70_000, 3, false},                   // blocks of more than topChunk rows
		{"stream", topStreamElems/10 + 100, 10, false}, // ds written with streaming stores
		{"non-finite", 500, 4, true},
		{"wide", 300, 1000, false},                             // a row at a time, cleared
		{"wide-stream", topStreamElems/1000 + 50, 1000, false}, // cleared with streaming stores
		{"wide-non-finite", 200, 33, true},
		{"empty", 0, 3, false},
	}
	for i, c := range cases {
		for _, procs := range []int{1, 2} {
			t.Run(c.name, func(t *testing.T) {
				withProcs(t, procs)
				checkTopLabel[float32](t, uint64(i), c.n, c.k, c.bad, sb)
				checkTopLabel[float64](t, uint64(i), c.n, c.k, c.bad, sb)
			})
		}
	}
}

func checkTopLabel[T Float](t *testing.T, seed uint64, n, k int, bad bool, sb SoftBins) {
	t.Helper()
	s, p := topLabelInputs[T](seed, n, k, bad)
	ds := Convert[T](RandNormal[float64](newRNG(seed+50), 0, 1, 1, len(sb.Anchors), 3))
	same := func(name string, got, want *Tensor[T]) {
		t.Helper()
		if !slices.Equal(got.Shape(), want.Shape()) {
			t.Fatalf("%s %v: shape %v, want %v", name, DType[T](), got.Shape(), want.Shape())
		}
		wd := want.Data()
		for i, v := range got.Data() {
			if math.Float64bits(float64(v)) != math.Float64bits(float64(wd[i])) && !(v != v && wd[i] != wd[i]) {
				t.Fatalf("%s %v: element %d is %v, want %v", name, DType[T](), i, v, wd[i])
			}
		}
	}
	stats, x, idx := TopLabelStats(s, p, sb)
	wstats, wx, widx := topLabelStatsComposed(s, p, sb)
	same("stats", stats, wstats)
	same("maxima", x, wx)
	same("indices", idx, widx)
	gs, gp := TopLabelStatsBackward(ds, x, idx, p, k, sb)
	ws, wp := topLabelStatsBackwardComposed(ds, wx, widx, p, k, sb)
	same("ds", gs, ws)
	same("dp", gp, wp)
	// In an arena, on recycled buffers of garbage: the body writes every
	// element of the gradient of s.
	var a Arena[T]
	a.Do(func() { Full[T](7, s.Shape()...); Full[T](7, n) })
	a.Do(func() { gs, gp = TopLabelStatsBackward(ds, x, idx, p, k, sb) })
	same("ds/arena", gs, ws)
	same("dp/arena", gp, wp)
	if n > 1 && k > 1 {
		if row := HostData(gs)[k : 2*k]; row[0] == 0 || row[k-1] != 0 {
			t.Errorf("%v: gradient of the tied row %v, want it at the first maximum only", DType[T](), row)
		}
	}
}

func TestTopLabelStatsShapeErrors(t *testing.T) {
	sb := SoftBins{Anchors: []float64{0.25, 0.75}, Dim: 1, Tau: 0.1}
	s, p := Zeros[float32](4, 3), Zeros[float32](4)
	mustPanic(t, func() { TopLabelStats(Zeros[float32](4, 3, 1), p, sb) }, "TopLabelStats", "[4 3 1]", "[N, K]")
	mustPanic(t, func() { TopLabelStats(s, Zeros[float32](5), sb) }, "TopLabelStats", "[4 3]", "[5]")
	mustPanic(t, func() { TopLabelStats(s, Zeros[float32](4, 1), sb) }, "TopLabelStats", "[4 1]")
	mustPanic(t, func() { TopLabelStats(s, p, SoftBins{Anchors: []float64{0, 1}, Dim: 2, Tau: 1}) }, "TopLabelStats", "dimension 2")
	mustPanic(t, func() { TopLabelStats(s, p, SoftBins{Anchors: sb.Anchors, Dim: 1}) }, "TopLabelStats", "temperature 0")
	_, x, idx := TopLabelStats(Full[float32](0.5, 4, 3), p, sb)
	ds := Zeros[float32](1, 2, 3)
	mustPanic(t, func() { TopLabelStatsBackward(Zeros[float32](1, 3, 3), x, idx, p, 3, sb) }, "TopLabelStatsBackward", "[1 3 3]", "[1 2 3]")
	mustPanic(t, func() { TopLabelStatsBackward(ds, Zeros[float32](5), idx, p, 3, sb) }, "TopLabelStatsBackward", "[5]", "[4]")
	mustPanic(t, func() { TopLabelStatsBackward(ds, x, idx, Zeros[float32](4, 1), 3, sb) }, "TopLabelStatsBackward", "[4 1]", "[N]")
	mustPanic(t, func() { TopLabelStatsBackward(ds, x, idx, p, 0, sb) }, "TopLabelStatsBackward", "0 classes")
}
