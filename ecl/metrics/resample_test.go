package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestResampledMatchesRows compares every bootstrapped statistic of the
// summed resamples with statistics on the resampled rows (Subset and
// NewReport), on the same resamples: conventions with and without a bin
// for no sample, the canonical error by its Gram matrices (k ≥ bins) and
// by summed vectors (k < bins), and probabilities with exact zeros.
func TestResampledMatchesRows(t *testing.T) {
	for _, c := range []struct {
		n, k int
		o    Options
	}{
		{400, 3, Options{Bins: 15}},
		{400, 40, Options{Bins: 15}},
		{300, 4, ReferenceOptions()},
		{300, 5, Options{Bins: 10, Convention: TorchMetrics, SumClasses: true}},
		{300, 5, Options{Bins: 10, Convention: NetCal, MinCount: 3}},
		{1, 3, Options{Bins: 15}},
		{5 * canonicalPiece, 3, Options{Bins: 15}},
	} {
		r := rand.New(rand.NewPCG(uint64(c.n), uint64(c.k)))
		probs, labels := make([]float64, c.n*c.k), make([]int, c.n)
		for i := range c.n {
			labels[i] = r.IntN(c.k)
			row := probs[i*c.k : (i+1)*c.k]
			sum := 0.0
			for j := range row {
				row[j] = math.Exp(3 * r.NormFloat64())
				if j == labels[i] {
					row[j] *= 4
				}
				if i%7 == 0 && j == 1 {
					row[j] = 0
				}
				sum += row[j]
			}
			for j := range row {
				row[j] /= sum
			}
		}
		const reps = 40
		want := make([]map[string]float64, 0, reps)
		Resample(c.n, reps, rand.New(rand.NewPCG(1, 0)), func(_ int, idx []int) {
			p, y := Subset(probs, c.k, labels, idx)
			st, err := statistics(p, c.k, y, c.o, 0, true)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, st)
		})
		s, err := newResampled(probs, c.k, labels, c.o, true)
		if err != nil {
			t.Fatal(err)
		}
		if c.k >= 15 && s.gram == nil {
			t.Fatalf("%d classes: no Gram matrices", c.k)
		}
		if largest := slices.MaxFunc(s.members, func(a, b []int) int { return len(a) - len(b) }); c.n > canonicalPiece && (s.gram != nil || len(largest) <= canonicalPiece) {
			t.Fatalf("n %d: Gram matrices %v, largest canonical bin %d: want a bin summed in several pieces", c.n, s.gram != nil, len(largest))
		}
		// keep runs on resampleAll's goroutine, where t.Fatal must not: the
		// first difference is reported and the rest skipped.
		got, failed := 0, false
		resampleAll([]*resampled{s}, c.n, reps, rand.New(rand.NewPCG(1, 0)), func(_ int, st map[string]float64) {
			w := want[got]
			got++
			if failed {
				return
			}
			for name, v := range w {
				if g, ok := st[name]; !ok || math.Abs(g-v) > 1e-9*(1+math.Abs(v)) {
					t.Errorf("n %d k %d %+v resample %d: %s = %v, on the rows %v", c.n, c.k, c.o, got-1, name, g, v)
					failed = true
					return
				}
			}
			if len(st) != len(w) {
				t.Errorf("resample %d: %d statistics, on the rows %d", got-1, len(st), len(w))
				failed = true
			}
		})
		if got != reps {
			t.Fatalf("%d resamples, want %d", got, reps)
		}
	}
}
