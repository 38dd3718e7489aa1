package experiment

import (
	"math"
	"slices"
	"testing"

	"github.com/ecl-go/ecl/datasets/sim"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/tensor"
)

// Isotonic regression is a post-hoc row fitted on the held-out source: on
// the fitting samples each class's mean calibrated probability, before
// renormalisation, is that class's frequency (the pool-adjacent-violators
// fit keeps the mean of the indicators), so after it the rows' class means
// are close to the frequencies, closer than the base model's.
func TestIsotonicRow(t *testing.T) {
	c := SimConfig{Recipe: "paper", Shifts: []sim.Kind{sim.Normal}, Study: Study{Paradigms: []ecl.Paradigm{ecl.TopLabel}, Runs: 1, Seed: 7, Methods: []string{"ts", "isotonic"}},
		Points: 200, Hidden: 8, BaseEpochs: 3, AuxEpochs: 1, ECLEpochs: 1}
	rs, err := RunSim(c)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range rs {
		names = append(names, r.Method.String())
	}
	if want := []string{"Uncal", "TS", "Isotonic", "ECL-toplabel"}; !slices.Equal(names, want) {
		t.Fatalf("rows %v, want %v", names, want)
	}
	a := firstArm(t, c)
	a.evalSrc = a.val // the fitting samples
	src, tgt, err := fitIsotonic(a, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tgt) != a.evalTgt.Len()*Classes {
		t.Fatalf("%d target probabilities for %d samples", len(tgt), a.evalTgt.Len())
	}
	gap := func(p []float64) float64 {
		g := 0.0
		for k := range Classes {
			mean, freq := 0.0, 0.0
			for i, y := range a.val.Y {
				mean += p[i*Classes+k]
				if y == k {
					freq++
				}
			}
			g += math.Abs(mean-freq) / float64(a.val.Len())
		}
		return g
	}
	uncal := tensor.Softmax(tensor.FromSlice(logits(a.base, a.val.X), a.val.Len(), Classes), 1).Data()
	g, g0 := gap(src), gap(uncal)
	t.Logf("class-frequency gap on the fitting samples: isotonic %.4f, base model %.4f", g, g0)
	if !(g < 0.02 && g < g0) {
		t.Errorf("class-frequency gap on the fitting samples: isotonic %.4f, base model %.4f", g, g0)
	}
}

// firstArm is the arm of c's first run.
func firstArm(t *testing.T, c SimConfig) *arm[float64] {
	t.Helper()
	runs, _, err := c.plan()
	if err != nil {
		t.Fatal(err)
	}
	a, err := c.newArm(runs[0])
	if err != nil {
		t.Fatal(err)
	}
	return a
}
