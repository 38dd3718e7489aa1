package metrics

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/ecl-go/ecl/tensor"
)

// The simplex of b bins and k classes has C(N+k−1, k−1) anchors of k
// values, N the smallest count reaching b.
func TestCanonicalAffordable(t *testing.T) {
	for _, c := range []struct {
		b, k int
		want bool
	}{
		{15, 3, true},       // N = 4: 15 anchors
		{15, 100, true},     // N = 1: 100 anchors, 10⁴ values
		{2000, 1000, false}, // N = 2: 500,500 anchors, 5·10⁸ values
		{1000, 1000, true},  // N = 1: 1000 anchors, 10⁶ values
	} {
		if got := CanonicalAffordable(c.b, c.k); got != c.want {
			t.Errorf("%d bins, %d classes: %v, want %v", c.b, c.k, got, c.want)
		}
	}
}

// randomPredictions draws n rows of k probabilities and a label from each.
func randomPredictions(rng *rand.Rand, n, k int) ([]float64, []int) {
	p, y := make([]float64, n*k), make([]int, n)
	for i := range n {
		row, s := p[i*k:(i+1)*k], 0.0
		for j := range row {
			row[j] = rng.ExpFloat64()
			s += row[j]
		}
		u := rng.Float64()
		y[i] = k - 1
		for j := range row {
			row[j] /= s
		}
		for j, v := range row {
			if u -= v; u < 0 {
				y[i] = j
				break
			}
		}
	}
	return p, y
}

// Predictions compared with themselves differ by zero in every metric, and
// the differences' intervals are [0, 0]; the intervals of the metrics
// contain the bias-corrected or plain estimates they are built around.
func TestCompareAndBootstrapReport(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	p, y := randomPredictions(rng, 200, 3)
	o := Options{Bins: 10}
	r, _, err := NewReport(p, 3, y, o, true, true)
	if err != nil {
		t.Fatal(err)
	}
	if r.Compare, err = Compare(p, p, 3, y, o, r.KDEBandwidth, true); err != nil {
		t.Fatal(err)
	}
	for name, d := range r.Compare.Diff {
		if d != 0 {
			t.Errorf("%s: difference %v with itself", name, d)
		}
	}
	if r.Compare.Metrics["ece"] != r.ECE || r.Compare.Metrics["acc"] != r.ACC {
		t.Errorf("compared metrics %v, report ECE %v ACC %v", r.Compare.Metrics, r.ECE, r.ACC)
	}
	notes, err := BootstrapReport(&r, p, p, 3, y, o, true, 100, 1)
	if err != nil {
		t.Fatal(err)
	}
	// ECE^KDE gets no interval, and the one note says why.
	if len(notes) != 1 || notes[0] != KDENoInterval {
		t.Errorf("notes %q, want KDENoInterval", notes)
	}
	for _, name := range []string{"acc", "ece", "mce", "ece_l2", "debiased_ece_l2", "cwece", "canonical_ece", "nll", "brier"} {
		ci, ok := r.CI[name]
		if !ok || !(ci[0] <= ci[1]) || r.CIMethod[name] == "" {
			t.Errorf("%s: interval %v (%q)", name, ci, r.CIMethod[name])
		}
	}
	for _, m := range kdeModes {
		if ci, ok := r.CI["ece_kde_"+m.name]; ok {
			t.Errorf("ECE^KDE %s: interval %v", m.name, ci)
		}
	}
	if ci := r.CI["mce"]; !(ci[0] <= r.MCE && r.MCE <= ci[1]) {
		t.Errorf("MCE %v outside its interval %v", r.MCE, ci)
	}
	if ci := r.CI["acc"]; !(ci[0] <= r.ACC && r.ACC <= ci[1]) {
		t.Errorf("accuracy %v outside its interval %v", r.ACC, ci)
	}
	if ci := r.CI["ece"]; !(ci[0] <= r.Debiased["ece"] && r.Debiased["ece"] <= ci[1]) {
		t.Errorf("bias-corrected ECE %v outside its interval %v", r.Debiased["ece"], ci)
	}
	for name, ci := range r.Compare.DiffCI {
		if ci != [2]float64{} {
			t.Errorf("%s: difference interval %v with itself", name, ci)
		}
	}
}

func TestPairedDifference(t *testing.T) {
	// Differences 1, 2, 3: mean 2, and a resampled mean lies in [1, 3].
	mean, lo, hi := PairedDifference([]float64{0, 0, 0}, []float64{1, 2, 3}, 200, 0.9, rand.New(rand.NewPCG(1, 1)))
	if mean != 2 || lo < 1 || hi > 3 || lo > hi {
		t.Errorf("mean %v in [%v, %v]", mean, lo, hi)
	}
	defer func() {
		err, _ := recover().(error)
		if !errors.Is(err, tensor.ErrArgument) {
			t.Errorf("lengths 2 and 1: panic %v, want a tensor.ArgumentError", err)
		}
	}()
	PairedDifference([]float64{1, 2}, []float64{1}, 10, 0.9, rand.New(rand.NewPCG(1, 1)))
}
