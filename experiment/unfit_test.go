package experiment

import (
	"errors"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/datasets"
	"github.com/ecl-go/ecl/ecl/metrics"
)

// A step that cannot be fitted (an UnfitError, as PseudoCal without target
// pairs of different predictions) gives a row marked unfit, and the run
// goes on to its next steps; another error ends the run. Fitted and
// Summarize leave the unfit row out and say why.
func TestUnfitStepIsRecorded(t *testing.T) {
	split := datasets.Split[float64]{Y: []int{0, 1, 1, 0}}
	a := &arm[float64]{classes: 2, evalSrc: split, evalTgt: split}
	probs := []float64{0.9, 0.1, 0.2, 0.8, 0.4, 0.6, 0.7, 0.3}
	fitted := func(m MethodID) step {
		return func() (row, error) { return row{method: m, src: probs, tgt: probs}, nil }
	}
	pc := Baseline("PseudoCal")
	steps := []step{
		fitted(Uncal),
		func() (row, error) {
			return row{method: pc}, &UnfitError{"PseudoCal found no target pair with different predictions"}
		},
		fitted(Baseline("TS")),
	}
	var logged []Result
	rs, err := a.results(steps, metrics.Options{Bins: 15}, func(r Result) { logged = append(logged, r) })
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 3 || len(logged) != 3 {
		t.Fatalf("%d results, %d logged; want 3 (the run goes on after the unfit step)", len(rs), len(logged))
	}
	if rs[1].Method != pc || !strings.Contains(rs[1].Unfit, "no target pair") || rs[1].Target.ACC != 0 {
		t.Errorf("the unfit row: %+v", rs[1])
	}
	if rs[0].Unfit != "" || rs[2].Unfit != "" || rs[2].Target.ACC != 1 {
		t.Errorf("the fitted rows: %+v, %+v", rs[0], rs[2])
	}
	for i := range rs {
		rs[i].Seed = 7
	}
	kept, unfit := Fitted(rs)
	if len(kept) != 2 || len(unfit) != 1 || !strings.Contains(unfit[0], "seed 7, PseudoCal: PseudoCal found no target pair") {
		t.Errorf("Fitted: %d kept, unfit %q", len(kept), unfit)
	}
	for _, s := range Summarize(rs) {
		if s.Method == pc {
			t.Errorf("Summarize kept the unfit row: %+v", s)
		}
	}

	boom := func() (row, error) { return row{}, errBoom }
	if _, err := a.results([]step{fitted(Uncal), boom}, metrics.Options{Bins: 15}, nil); err != errBoom {
		t.Errorf("another error: %v, want it returned", err)
	}
}

var errBoom = errors.New("boom")
