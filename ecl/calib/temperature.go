package calib

import (
	"fmt"
	"math"

	"github.com/ecl-go/ecl/ecl/baselines"
	"github.com/ecl-go/ecl/ecl/metrics"
	"gonum.org/v1/gonum/stat"
)

// Temperature is softmax(z/T).
type Temperature struct {
	T float64 `json:"temperature"`
}

func (*Temperature) family() string { return "temperature" }

func (c *Temperature) check(int) error {
	if !(c.T > 0) || math.IsInf(c.T, 0) {
		return fmt.Errorf("temperature %v must be positive and finite", c.T)
	}
	return nil
}

// Apply returns softmax(logits/T).
func (c *Temperature) Apply(logits []float64, k int) ([]float64, error) {
	if _, err := checkScores("Temperature.Apply", logits, k, nil); err != nil {
		return nil, err
	}
	if err := c.check(k); err != nil {
		return nil, fmt.Errorf("calib.Temperature.Apply: %w", err)
	}
	return baselines.Scale(logits, k, c.T), nil
}

// FitTemperature is temperature scaling: T minimising the mean negative
// log-likelihood of the labels, weighted by w when w is not nil — with
// importance weights p_t/p_s of the samples this is importance-weighted
// TS, an estimate of the target's likelihood under covariate shift.
func FitTemperature(logits []float64, k int, labels []int, w []float64) (*Temperature, error) {
	return fitTemperature("FitTemperature", logits, k, labels, w, baselines.NLL)
}

// FitCPCS is the CPCS form of weighted TS (Park et al., 2020, as in
// ecl/baselines): T minimising mean(w·Brier) with importance weights w.
func FitCPCS(logits []float64, k int, labels []int, w []float64) (*Temperature, error) {
	if w == nil {
		return nil, fmt.Errorf("calib.FitCPCS: importance weights are required")
	}
	return fitTemperature("FitCPCS", logits, k, labels, w, baselines.Brier)
}

func fitTemperature(fn string, logits []float64, k int, labels []int, w []float64, obj baselines.Objective) (*Temperature, error) {
	n, err := checkScores(fn, logits, k, labels)
	if err != nil {
		return nil, err
	}
	if err := checkWeights(fn, w, n); err != nil {
		return nil, err
	}
	t, err := baselines.FitTemperature(logits, k, labels, w, obj)
	if err != nil {
		return nil, fmt.Errorf("calib.%s: %w", fn, err)
	}
	return &Temperature{T: t}, nil
}

// FitTransCal is TransCal (Wang et al., 2020, as in ecl/baselines): source
// TS first, then T ≥ 1 matching the target's mean confidence to the
// control-variate estimate of the target accuracy from the source samples'
// importance weights w (TransCal fits its domain classifier on domains
// resampled to equal size: see DomainOptions.Balance).
func FitTransCal(srcLogits []float64, k int, srcLabels []int, w, tgtLogits []float64) (*Temperature, error) {
	n, err := checkScores("FitTransCal", srcLogits, k, srcLabels)
	if err != nil {
		return nil, err
	}
	if _, err := checkScores("FitTransCal", tgtLogits, k, nil); err != nil {
		return nil, err
	}
	if err := checkWeights("FitTransCal", w, n); err != nil {
		return nil, err
	}
	ts, err := FitTemperature(srcLogits, k, srcLabels, nil)
	if err != nil {
		return nil, err
	}
	confs, correct := metrics.TopLabel(baselines.Scale(srcLogits, k, ts.T), k, srcLabels)
	errs := make([]float64, len(correct))
	for i, c := range correct {
		errs[i] = 1 - c
	}
	t, err := baselines.TransCal(tgtLogits, k, w, errs, stat.Mean(confs, nil))
	if err != nil {
		return nil, fmt.Errorf("calib.FitTransCal: %w", err)
	}
	return &Temperature{T: t}, nil
}
