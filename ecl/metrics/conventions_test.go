package metrics

import (
	"math"
	"slices"
	"testing"
)

// TestConventionsByHand bins P(y = 1) of seven samples into 2 bins under
// each library's rules. With d = p − y, the L1 error is Σ_bins |Σ_{i∈bin} d_i| / n.
// p = 0 .5 1 1 .75 .25 .5, y = 1 1 1 0 1 0 1, d = −1 −.5 0 1 −.25 .25 −.5:
//   - ours, kumar (lo, hi], 0 in bin 0: {0, .5, .25, .5} −1.75, {1, 1, .75} .75 → 2.5/7
//   - reference: 0 in no bin: {.5, .25, .5} −.75, {1, 1, .75} .75 → 1.5/7
//   - torchmetrics [lo, hi), 1 alone: {0, .25} −.75, {.5, .75, .5} −1.25, {1, 1} 1 → 3/7
//   - netcal clip to [ε, 1−ε], [lo, hi) with the last closed: {0, .25} −.75 + ε,
//     {.5, 1, 1, .75, .5} −.25 − 2ε → (1 + ε)/7
func TestConventionsByHand(t *testing.T) {
	p := []float64{0, .5, 1, 1, .75, .25, .5}
	y := []int{1, 1, 1, 0, 1, 0, 1}
	for _, c := range []struct {
		name     string
		conv     Convention
		want     float64
		counts   []int
		unbinned int
	}{
		{"ours", Ours, 2.5 / 7, []int{4, 3}, 0},
		{"kumar", Kumar, 2.5 / 7, []int{4, 3}, 0},
		{"reference", ReferenceECL, 1.5 / 7, []int{3, 3}, 1},
		{"torchmetrics", TorchMetrics, 3.0 / 7, []int{2, 3, 2}, 0},
		{"netcal", NetCal, 1.0 / 7, []int{2, 5}, 0},
	} {
		cal, err := BinaryECE(p, y, Options{Bins: 2, Convention: c.conv})
		if err != nil {
			t.Fatal(err)
		}
		var counts []int
		for _, b := range cal.Bins {
			counts = append(counts, b.Count)
		}
		if math.Abs(cal.Error-c.want) > 1e-15 || !slices.Equal(counts, c.counts) || cal.Unbinned != c.unbinned {
			t.Errorf("%s: error %v counts %v unbinned %d, want %v %v %d", c.name, cal.Error, counts, cal.Unbinned, c.want, c.counts, c.unbinned)
		}
	}
	// The reference's default minimum count (≤ 5 samples dropped) empties every bin here.
	if cal, _ := BinaryECE(p, y, ConventionOptions(ReferenceECL)); cal.Error != 0 {
		t.Errorf("reference defaults: %v, want 0", cal.Error)
	}
	// torchmetrics' extra bin is [1, 1].
	if cal, _ := BinaryECE(p, y, Options{Bins: 2, Convention: TorchMetrics}); cal.Bins[2].Lo != 1 || cal.Bins[2].Hi != 1 || cal.Bins[2].Conf != 1 || cal.Bins[2].Acc != 0.5 {
		t.Errorf("torchmetrics extra bin %+v", cal.Bins[2])
	}
}

// TestKumarEdges: 3·(1/10) = 0.30000000000000004 is numpy.linspace's fourth
// edge for 10 bins, so (lo, hi] puts it in bin 2; Kumar's edge 3/10 = 0.3 lies
// below it, so his bins put it in bin 3.
func TestKumarEdges(t *testing.T) {
	b := 10
	x := 3 * (1 / float64(b)) // in float64, not Go's exact constant arithmetic
	if x != 0.30000000000000004 {
		t.Fatal("3·(1/10) should round above 0.3")
	}
	for conv, want := range map[Convention]int{Ours: 2, Kumar: 3, TorchMetrics: 3, NetCal: 3} {
		cal := must[Calibration](t)(BinaryECE([]float64{x}, []int{0}, Options{Bins: 10, Convention: conv}))
		if cal.Bins[want].Count != 1 {
			t.Errorf("convention %d: %v not in bin %d", conv, x, want)
		}
	}
}

// TestEqualMassConventions splits 0.05, 0.15, …, 0.95 into 4 equal-mass bins:
// ours (numpy.array_split sizes) 3 3 2 2; Kumar (chunks of ⌈10/4⌉ = 3)
// 3 3 3 1; netcal (numpy.quantile edges .275, .5, .725, bins [lo, hi)) 3 2 2 3.
func TestEqualMassConventions(t *testing.T) {
	var p []float64
	for i := range 10 {
		p = append(p, 0.05+0.1*float64(i))
	}
	y := make([]int, 10)
	for conv, want := range map[Convention][]int{Ours: {3, 3, 2, 2}, Kumar: {3, 3, 3, 1}, NetCal: {3, 2, 2, 3}} {
		cal := must[Calibration](t)(BinaryECE(p, y, Options{Bins: 4, Scheme: EqualMass, Convention: conv}))
		var counts []int
		for _, b := range cal.Bins {
			counts = append(counts, b.Count)
		}
		if !slices.Equal(counts, want) {
			t.Errorf("convention %d: counts %v, want %v", conv, counts, want)
		}
	}
}
