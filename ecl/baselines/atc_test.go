package baselines

import (
	"math"
	"strings"
	"testing"
)

func TestATC(t *testing.T) {
	src := []float64{0.9, 0.1, 0.5, 1.0, 0.3, 0.7, 0.2, 0.8, 0.6, 0.4}
	correct := []bool{true, false, true, true, false, true, true, true, false, true} // 7 of 10
	// 7 of the 10 source scores lie above the third smallest, 0.3.
	acc, thr, err := ATC(src, correct, []float64{0.2, 0.35, 0.5, 0.9})
	if err != nil || thr != 0.3 || acc != 0.75 {
		t.Fatalf("ATC = %v, threshold %v, %v; want 0.75, 0.3", acc, thr, err)
	}
	// On the source itself the estimate is the source's accuracy.
	if acc, _, _ := ATC(src, correct, src); acc != 0.7 {
		t.Errorf("ATC on its own source = %v, want 0.7", acc)
	}
	all := []bool{true, true, true, true, true, true, true, true, true, true}
	if acc, thr, _ := ATC(src, all, []float64{-5, 0}); acc != 1 || !math.IsInf(thr, -1) {
		t.Errorf("every source sample correct: %v, threshold %v; want 1, −Inf", acc, thr)
	}
	none := make([]bool, 10)
	if acc, thr, _ := ATC(src, none, []float64{1, 2}); acc != 0.5 || thr != 1 {
		t.Errorf("no source sample correct: %v, threshold %v; want 0.5, 1", acc, thr)
	}
	for _, bad := range []struct {
		src, tgt []float64
		ok       []bool
		want     string
	}{
		{nil, []float64{1}, nil, "0 source scores"},
		{src, []float64{1}, correct[:3], "3 correctness flags"},
		{src, nil, correct, "0 target scores"},
		{src, []float64{math.NaN()}, correct, "score 0 is NaN"},
	} {
		if _, _, err := ATC(bad.src, bad.ok, bad.tgt); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("ATC error %v, want one naming %q", err, bad.want)
		}
	}
}

func TestNegEntropy(t *testing.T) {
	got := NegEntropy([]float64{0.5, 0.5, 1, 0}, 2)
	if math.Abs(got[0]+math.Ln2) > 1e-15 || got[1] != 0 {
		t.Errorf("NegEntropy = %v, want [−ln 2, 0]", got)
	}
}

func TestTemperatureForMean(t *testing.T) {
	// Largest probability 2^(1/T)/(2 + 2^(1/T)): 1/2 at T = 1, 2/3 at T = 1/2.
	three := []float64{0, 0, math.Ln2, math.Ln2, 0, 0}
	for _, c := range []struct{ want, t float64 }{{0.5, 1}, {2.0 / 3, 0.5}} {
		got, err := TemperatureForMean(three, 3, c.want)
		if err != nil || math.Abs(got-c.t) > 1e-9 {
			t.Errorf("mean largest probability %v: T = %v, %v; want %v", c.want, got, err, c.t)
		}
	}
	// Temperature moves the largest of three probabilities between 1 and 1/3 only.
	if _, err := TemperatureForMean(three, 3, 0.3); err == nil || !strings.Contains(err.Error(), "reachable") {
		t.Errorf("unreachable mean: error %v", err)
	}
	if _, err := TemperatureForMean(three[:4], 3, 0.7); err == nil {
		t.Error("4 logits of 3 classes: no error")
	}
}

func TestShiftForMean(t *testing.T) {
	// σ(ln 3 + b) and σ(−ln 3 + b) average 1/2 at b = 0; both ln 3 give 3/4 at 0.
	l3 := math.Log(3)
	for _, c := range []struct {
		g           []float64
		want, shift float64
	}{{[]float64{l3, -l3}, 0.5, 0}, {[]float64{l3, l3}, 0.75, 0}, {[]float64{l3, l3}, 0.5, -l3}, {[]float64{0}, 0.9, math.Log(9)}} {
		got, err := ShiftForMean(c.g, c.want)
		if err != nil || math.Abs(got-c.shift) > 1e-9 {
			t.Errorf("logits %v, mean %v: shift %v, %v; want %v", c.g, c.want, got, err, c.shift)
		}
	}
	for _, bad := range []struct {
		g    []float64
		want float64
	}{{nil, 0.5}, {[]float64{1}, 1}, {[]float64{1}, 0}, {[]float64{math.Inf(1)}, 0.5}} {
		if _, err := ShiftForMean(bad.g, bad.want); err == nil {
			t.Errorf("logits %v, mean %v: no error", bad.g, bad.want)
		}
	}
}
