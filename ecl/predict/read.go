package predict

import (
	"fmt"
	"math"

	"github.com/ecl-go/ecl/datasets/arrays"
	"github.com/ecl-go/ecl/tensor"
)

// Mode says how a prediction file is to be read.
type Mode string

const (
	// Auto reads a file as Detect says.
	Auto Mode = "auto"
	// Probs reads a file as probabilities and refuses anything else.
	Probs Mode = "probs"
	// Logits reads a file as logits, whatever it looks like.
	Logits Mode = "logits"
	// LogitsChecked reads a file as logits and refuses one that Detect
	// takes for probabilities (ReadProbabilities only; ReadScores treats it
	// as Logits).
	LogitsChecked Mode = "logits?"
)

// ModeError is a Mode that is none of Auto, Probs, Logits, LogitsChecked.
type ModeError struct{ Mode Mode }

func (e *ModeError) Error() string { return fmt.Sprintf("predict: unknown mode %q", string(e.Mode)) }

func (m Mode) check() error {
	switch m {
	case Auto, Probs, Logits, LogitsChecked:
		return nil
	}
	return &ModeError{Mode: m}
}

// FileError is an error about the contents of one input file.
type FileError struct {
	Path   string // the file
	Reason string // what is wrong, with the row and column where one is
}

func (e *FileError) Error() string { return e.Path + ": " + e.Reason }

func fileErr(path, format string, a ...any) error {
	return &FileError{Path: path, Reason: fmt.Sprintf(format, a...)}
}

// ReadLabels reads integer class labels (CSV, text with one per line, .npy
// or .npz[:array]); a file without labels is an error.
func ReadLabels(path string) ([]int, error) {
	labels, err := arrays.ReadLabels(path)
	if err != nil {
		return nil, err
	}
	if len(labels) == 0 {
		return nil, fileErr(path, "no labels (0 rows)")
	}
	return labels, nil
}

// checkFinite refuses a NaN or infinite entry of data [rows, cols].
func checkFinite(path string, data []float64, cols int) error {
	for i, v := range data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fileErr(path, "row %d, column %d: %v is not finite", i/cols+1, i%cols+1, v)
		}
	}
	return nil
}

// checkLabels refuses labels outside [0, k) of the predictions in path.
func checkLabels(labelsPath string, labels []int, k int, path string) error {
	for i, y := range labels {
		if y < 0 || y >= k {
			return fileErr(labelsPath, "row %d: label %d outside [0, %d) (%s has %d classes)", i+1, y, k, path, k)
		}
	}
	return nil
}

// Probabilities are checked [N, K] probabilities read from a file.
type Probabilities struct {
	Probs []float64
	K     int
	// Input is "probabilities" or "logits" (softmax applied), Notes what
	// was detected or repaired on the way, Warnings what a command prints
	// before its results (Classify).
	Input    string
	Notes    []string
	Warnings []string
}

// ReadProbabilities reads the predictions in path for labels (read from
// labelsPath, which errors name) as checked [N, K] probabilities, read as
// Classify decides. Logits get a softmax (a single column the sigmoid);
// rows of probabilities not summing to 1 exactly are renormalised, with a
// note; a single column of probabilities P(y = 1) becomes the rows
// [1 − p, p].
func ReadProbabilities(path, labelsPath string, labels []int, mode Mode) (Probabilities, error) {
	if err := mode.check(); err != nil {
		return Probabilities{}, err
	}
	m, err := arrays.Load(path)
	if err != nil {
		return Probabilities{}, err
	}
	p := Probabilities{Probs: m.Data, K: m.Cols, Notes: m.Notes}
	if m.Rows == 0 {
		return p, fileErr(path, "no predictions (0 rows)")
	}
	if m.Rows != len(labels) {
		return p, fileErr(labelsPath, "%d labels for the %d rows of %s", len(labels), m.Rows, path)
	}
	if err := checkFinite(path, p.Probs, p.K); err != nil {
		return p, err
	}
	c, err := Classify(path, p.Probs, p.K, mode)
	if err != nil {
		return p, err
	}
	p.Input, p.Notes, p.Warnings = string(c.Kind), append(p.Notes, c.Notes...), c.Warnings
	switch {
	case c.Kind == KindLogits && p.K == 1:
		p.Probs, p.K = SoftmaxRows(p.Probs, p.K), 2
	case c.Kind == KindLogits:
		SoftmaxRowsTo(p.Probs, p.Probs, p.K) // in place: the file's array is this call's own
	case p.K == 1:
		p.Probs, p.K = binaryColumns(p.Probs), 2
	case c.Detection.Dev > 1e-9:
		renormalise(p.Probs, p.K)
	}
	if p.K == 2 && m.Cols == 1 {
		p.Notes = append(p.Notes, fmt.Sprintf("%s: one column, read as the binary P(y = 1)", path))
	}
	return p, checkLabels(labelsPath, labels, p.K, path)
}

// renormalise divides every row by its sum.
func renormalise(p []float64, k int) {
	for i := 0; i < len(p); i += k {
		s := rowSum(p, k, i/k)
		for j := range k {
			p[i+j] /= s
		}
	}
}

// binaryColumns turns P(y = 1) into rows [1 − p, p].
func binaryColumns(p []float64) []float64 {
	out := make([]float64, 2*len(p))
	for i, v := range p {
		out[2*i], out[2*i+1] = 1-v, v
	}
	return out
}

// SoftmaxRows returns the softmax of each row of finite logits x [N, k],
// exp(z − max z)/Σ, rows over the cores; a single column is a binary
// logit z, read as the row [0, z] (P(y = 1) = σ(z)).
func SoftmaxRows(x []float64, k int) []float64 {
	if k == 1 {
		z := make([]float64, 2*len(x))
		for i, v := range x {
			z[2*i+1] = v
		}
		x, k = z, 2
	}
	out := make([]float64, len(x))
	SoftmaxRowsTo(out, x, k)
	return out
}

// SoftmaxRowsTo sets out to SoftmaxRows(x, k) for k ≥ 2, rows over the
// cores; out may be x.
func SoftmaxRowsTo(out, x []float64, k int) {
	tensor.ParallelFor(len(x)/k, 20*k, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			SoftmaxScaled(out[i*k:(i+1)*k], x[i*k:(i+1)*k], 1)
		}
	})
}
