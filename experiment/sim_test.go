package experiment

import (
	"errors"
	"math"
	"testing"

	"github.com/ecl-go/ecl/datasets/sim"
	"github.com/ecl-go/ecl/ecl"
)

func TestSummarizeCountsWins(t *testing.T) {
	mk := func(method string, seed uint64, ece float64) Result {
		return Result{Shift: SimShift(sim.Normal), Setup: "x", Method: ParseMethodID(method), Seed: seed, Target: Scores{ECE: ece, ACC: 0.9}}
	}
	rs := []Result{
		mk("Uncal", 1, 0.10), mk("CE-finetune", 1, 0.05), mk("ECL-toplabel", 1, 0.08),
		mk("Uncal", 2, 0.10), mk("CE-finetune", 2, 0.12), mk("ECL-toplabel", 2, 0.11),
	}
	ss := Summarize(rs)
	if len(ss) != 3 || ss[2].Method != ECLIn(ecl.TopLabel, "") {
		t.Fatalf("summaries %+v", ss)
	}
	e := ss[2]
	if e.Wins != 1 || math.Abs(e.Delta-(-0.02+0.01)/2) > 1e-12 {
		t.Errorf("vs Uncal: %d wins, delta %v", e.Wins, e.Delta)
	}
	if e.WinsCtl != 1 || math.Abs(e.DeltaCtl-(0.03-0.01)/2) > 1e-12 {
		t.Errorf("vs control: %d wins, delta %v", e.WinsCtl, e.DeltaCtl)
	}
	if ss[0].Wins != -1 || ss[0].Target["ECE"].Mean != 0.10 || ss[0].Target["ECE"].Std != 0 {
		t.Errorf("Uncal summary %+v", ss[0])
	}
}

// A short run trains every method and is reproducible from its seed.
func TestRunSimIsSeeded(t *testing.T) {
	c := SimConfig{Recipe: "paper", Shifts: []sim.Kind{sim.Uniform}, Study: Study{Paradigms: []ecl.Paradigm{ecl.TopLabel, ecl.Canonical}, Runs: 1, Seed: 3, Control: true},
		Points: 60, Hidden: 8, BaseEpochs: 3, AuxEpochs: 2, ECLEpochs: 2}
	a, err := RunSim(c)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 4 {
		t.Fatalf("%d results, want Uncal, CE-finetune and two ECL rows", len(a))
	}
	b, _ := RunSim(c)
	for i := range a {
		if a[i].Target != b[i].Target || a[i].Method != b[i].Method {
			t.Errorf("run differs for %s: %+v vs %+v", a[i].Method, a[i].Target, b[i].Target)
		}
	}
	c.Recipe = "nope"
	if _, err := RunSim(c); err == nil {
		t.Error("unknown recipe accepted")
	}
}

// Every baseline gives a row; post-hoc temperatures change confidences,
// never the predicted class.
func TestPostHocKeepsAccuracy(t *testing.T) {
	c := SimConfig{Recipe: "paper", Shifts: []sim.Kind{sim.Normal}, Study: Study{Paradigms: []ecl.Paradigm{ecl.TopLabel}, Runs: 1, Seed: 5, Methods: Methods},
		Points: 80, Hidden: 8, BaseEpochs: 20, AuxEpochs: 1, ECLEpochs: 1}
	rs, err := RunSim(c)
	if err != nil {
		t.Fatal(err)
	}
	byMethod := map[string]Result{}
	for _, r := range rs {
		byMethod[r.Method.String()] = r
	}
	for _, m := range Registered() {
		if _, ok := byMethod[m.Name]; !ok {
			t.Errorf("no %s row", m.Name)
		}
	}
	for _, m := range []string{"TS", "CPCS", "TransCal", "PseudoCal"} {
		r, ok := byMethod[m]
		if !ok {
			t.Fatalf("no %s row in %v", m, rs)
		}
		if r.Target.ACC != byMethod["Uncal"].Target.ACC || r.Target.ECE == byMethod["Uncal"].Target.ECE {
			t.Errorf("%s: target %+v, Uncal %+v", m, r.Target, byMethod["Uncal"].Target)
		}
	}
	c.Methods = []string{"nope"}
	if _, err := RunSim(c); err == nil {
		t.Error("unknown post-hoc method accepted")
	}
}

// TestSimValidate: zero fields are the defaults and pass; a negative size or
// a non-finite rate is a SettingError naming its field, before any work.
func TestSimValidate(t *testing.T) {
	ok := SimConfig{Study: Study{Runs: 1, Paradigms: []ecl.Paradigm{ecl.TopLabel}}, Shifts: []sim.Kind{sim.Normal}}
	if err := ok.Validate(); err != nil {
		t.Fatalf("defaults rejected: %v", err)
	}
	for field, c := range map[string]SimConfig{
		"Batch":     func() SimConfig { c := ok; c.Batch = -5; return c }(),
		"Points":    func() SimConfig { c := ok; c.Points = 1; return c }(),
		"ECLLR":     func() SimConfig { c := ok; c.ECLLR = math.NaN(); return c }(),
		"Loss.EMA":  func() SimConfig { c := ok; c.Loss.EMA = 2; return c }(),
		"Loss.Bins": func() SimConfig { c := ok; c.Loss.Bins = -1; return c }(),
		"Runs":      func() SimConfig { c := ok; c.Runs = 0; return c }(),
	} {
		var se *SettingError
		if err := c.Validate(); !errors.As(err, &se) || se.Field != field {
			t.Errorf("%s out of range: error %v", field, err)
		}
	}
}
