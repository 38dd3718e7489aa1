package calib

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"
)

// Platt scaling with SmoothedTargets gives scikit-learn's
// CalibratedClassifierCV(method="sigmoid") probabilities on the fixture
// scripts/sklearn_platt_fixture.py wrote (scikit-learn stops its BFGS at a
// gradient of 1e-5; they agree to 2e-8 here, checked to 1e-6), where the fit to
// the 0/1 labels does not.
func TestPlattSmoothedTargetsMatchScikitLearn(t *testing.T) {
	b, err := os.ReadFile("testdata/sklearn_platt.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		Sklearn string
		Cases   []struct {
			Name   string
			Logits []float64
			Labels []int
			P1     []float64
			A, B   float64
		}
	}
	if err := json.Unmarshal(b, &fx); err != nil {
		t.Fatal(err)
	}
	if len(fx.Cases) != 3 {
		t.Fatalf("%d cases in the fixture, want 3", len(fx.Cases))
	}
	for _, c := range fx.Cases {
		pl, err := FitPlattWith(c.Logits, 2, c.Labels, SmoothedTargets)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		// scikit-learn's P(class 1) = 1/(1 + exp(a·s + b)): A = −a, B = −b.
		if math.Abs(pl.A+c.A) > 1e-3*(1+math.Abs(c.A)) || math.Abs(pl.B+c.B) > 1e-3*(1+math.Abs(c.B)) {
			t.Errorf("%s: (A, B) = (%v, %v), scikit-learn %s (−a, −b) = (%v, %v)", c.Name, pl.A, pl.B, fx.Sklearn, -c.A, -c.B)
		}
		p, err := pl.Apply(c.Logits, 2)
		if err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		for i, want := range c.P1 {
			worst = max(worst, math.Abs(p[2*i+1]-want))
		}
		if worst > 1e-6 {
			t.Errorf("%s: P(class 1) differs from scikit-learn's by up to %.3g", c.Name, worst)
		}
		if strings.HasPrefix(c.Name, "separable") {
			continue // labels alone have no finite maximum-likelihood fit
		}
		plain, err := FitPlattWith(c.Logits, 2, c.Labels, LabelTargets)
		if err != nil {
			t.Fatal(err)
		}
		q, _ := plain.Apply(c.Logits, 2)
		gap := 0.0
		for i, want := range c.P1 {
			gap = max(gap, math.Abs(q[2*i+1]-want))
		}
		t.Logf("%s: smoothed targets within %.2g of scikit-learn, label targets %.3f", c.Name, worst, gap)
		if gap < 1e-3 {
			t.Errorf("%s: the fit to the labels is within %.3g of scikit-learn's; the fixture no longer tells the targets apart", c.Name, gap)
		}
	}
	if _, err := ParsePlattTargets("platt"); err == nil || !strings.Contains(err.Error(), "want labels or smoothed") {
		t.Errorf("ParsePlattTargets(platt): %v", err)
	}
}

// A three-class row that every isotonic map sends to 0 keeps its
// uncalibrated probabilities (docs/calibrate.md: scikit-learn would give
// 1/3 each); a row with some mass is renormalised.
func TestIsotonicRowOfZerosKeepsItsProbabilities(t *testing.T) {
	// Each class's map is 0 up to 0.55 and 1 from 0.6 on.
	c := &Isotonic{X: [][]float64{{0.55, 0.6}, {0.55, 0.6}, {0.55, 0.6}}, Y: [][]float64{{0, 1}, {0, 1}, {0, 1}}}
	// Rows of probabilities ln p: (0.2, 0.3, 0.5) maps to (0, 0, 0);
	// (0.1, 0.2, 0.7) to (0, 0, 1).
	logits := []float64{math.Log(0.2), math.Log(0.3), math.Log(0.5), math.Log(0.1), math.Log(0.2), math.Log(0.7)}
	got, err := c.Apply(logits, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0.2, 0.3, 0.5, 0, 0, 1}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("rows %v, want %v", got, want)
		}
	}
}
