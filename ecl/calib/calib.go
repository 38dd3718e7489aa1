package calib

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/ecl-go/ecl/ecl/predict"
	"github.com/ecl-go/ecl/tensor"
)

// Calibrator maps logits [n, k] to calibrated probabilities [n, k].
type Calibrator interface {
	Apply(logits []float64, k int) ([]float64, error)
	// family names the calibrator's type in saved files.
	family() string
}

// families makes an empty calibrator of each saved family, for Load.
var families = map[string]func() Calibrator{
	"temperature": func() Calibrator { return new(Temperature) },
	"affine":      func() Calibrator { return new(Affine) },
	"histogram":   func() Calibrator { return new(Histogram) },
	"isotonic":    func() Calibrator { return new(Isotonic) },
	"platt":       func() Calibrator { return new(Platt) },
	"beta":        func() Calibrator { return new(Beta) },
}

// Saved is the JSON form of a fitted calibrator: the method's name, the
// family that decodes Params, the number of classes and the kind of scores
// it was fitted on ("logits" or "probabilities").
type Saved struct {
	Method  string          `json:"method"`
	Family  string          `json:"family"`
	Classes int             `json:"classes"`
	Input   string          `json:"input"`
	Params  json.RawMessage `json:"params"`
}

// Save returns the indented JSON of c under the method's name.
func Save(method string, classes int, input string, c Calibrator) ([]byte, error) {
	p, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("calib.Save %s: %w", method, err)
	}
	return json.MarshalIndent(Saved{Method: method, Family: c.family(), Classes: classes, Input: input, Params: p}, "", "  ")
}

// Load decodes a file written by Save.
func Load(data []byte) (Saved, Calibrator, error) {
	var s Saved
	if err := json.Unmarshal(data, &s); err != nil {
		return s, nil, fmt.Errorf("calib.Load: %w", err)
	}
	mk := families[s.Family]
	if mk == nil {
		return s, nil, fmt.Errorf("calib.Load: unknown family %q (method %q)", s.Family, s.Method)
	}
	if s.Classes < 2 {
		return s, nil, fmt.Errorf("calib.Load: %d classes", s.Classes)
	}
	c := mk()
	if err := json.Unmarshal(s.Params, c); err != nil {
		return s, nil, fmt.Errorf("calib.Load %s: params: %w", s.Method, err)
	}
	if v, ok := c.(interface{ check(k int) error }); ok {
		if err := v.check(s.Classes); err != nil {
			return s, nil, fmt.Errorf("calib.Load %s: %w", s.Method, err)
		}
	}
	return s, c, nil
}

// ProbFloor is the smallest probability LogProbs takes the logarithm of.
const ProbFloor = 1e-15

// LogProbs returns ln max(p, ProbFloor) elementwise: logits whose softmax is
// p (to within the floor).
func LogProbs(probs []float64) []float64 {
	out := make([]float64, len(probs))
	for i, p := range probs {
		out[i] = math.Log(max(p, ProbFloor))
	}
	return out
}

// Softmax returns the row-wise softmax of logits [n, k], computed stably,
// rows over the cores (predict.SoftmaxRows).
func Softmax(logits []float64, k int) []float64 { return predict.SoftmaxRows(logits, k) }

// softmaxRow sets p = softmax(z) (p may be z) and returns ln Σ exp(z).
func softmaxRow(p, z []float64) float64 { return predict.SoftmaxScaled(p, z, 1) }

// logSoftmax returns the row-wise log-softmax of logits [n, k]: each row
// less its rowLSE.
func logSoftmax(logits []float64, k int) []float64 {
	out, lse := make([]float64, len(logits)), rowLSE(logits, k)
	for i, v := range logits {
		out[i] = v - lse[i/k]
	}
	return out
}

// rowLSE returns the log-sum-exp of each row of logits [n, k], as
// softmaxRow computes it, rows over the cores.
func rowLSE(logits []float64, k int) []float64 {
	lse := make([]float64, len(logits)/k)
	tensor.ParallelFor(len(lse), 20*k, func(lo, hi int) {
		p := make([]float64, k)
		for i := lo; i < hi; i++ {
			lse[i] = softmaxRow(p, logits[i*k:(i+1)*k])
		}
	})
	return lse
}

// checkScores validates logits [n, k] with finite values, and labels when
// given (nil skips), for the function fn.
func checkScores(fn string, logits []float64, k int, labels []int) (n int, err error) {
	if k < 2 {
		return 0, fmt.Errorf("calib.%s: %d classes, need at least 2", fn, k)
	}
	if len(logits) == 0 || len(logits)%k != 0 {
		return 0, fmt.Errorf("calib.%s: %d scores do not make rows of %d classes", fn, len(logits), k)
	}
	n = len(logits) / k
	for i, v := range logits {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("calib.%s: row %d, column %d: score %v is not finite", fn, i/k, i%k, v)
		}
	}
	if labels != nil {
		if len(labels) != n {
			return 0, fmt.Errorf("calib.%s: %d labels for %d rows", fn, len(labels), n)
		}
		for i, y := range labels {
			if y < 0 || y >= k {
				return 0, fmt.Errorf("calib.%s: label %d at row %d outside [0, %d)", fn, y, i, k)
			}
		}
	}
	return n, nil
}

// checkWeights validates per-sample importance weights (nil for none).
func checkWeights(fn string, w []float64, n int) error {
	if w == nil {
		return nil
	}
	if len(w) != n {
		return fmt.Errorf("calib.%s: %d weights for %d rows", fn, len(w), n)
	}
	total := 0.0
	for i, v := range w {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("calib.%s: weight %v at row %d", fn, v, i)
		}
		total += v
	}
	if total == 0 {
		return fmt.Errorf("calib.%s: all weights are 0", fn)
	}
	return nil
}
