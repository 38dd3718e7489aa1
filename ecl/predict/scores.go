package predict

import (
	"fmt"
	"math"

	"github.com/ecl-go/ecl/datasets/arrays"
)

// probFloor is the smallest probability whose logarithm a logit takes (the
// calibrators' floor, calib.ProbFloor).
const probFloor = 1e-15

// Scores are predictions read as logits, for calibrators.
type Scores struct {
	Path string `json:"path"`
	Rows int    `json:"rows"`
	Cols int    `json:"columns"`
	// Kind is what the file held, "logits" or "probabilities", and How
	// how that was decided and what was repaired.
	Kind string `json:"kind"`
	How  string `json:"detected"`
	// Logits are [Rows, K]: the file's logits, ln p of its probabilities;
	// a single column becomes two classes.
	Logits []float64 `json:"-"`
	K      int       `json:"-"`
	// Warnings are Classify's: what a command prints before its results.
	Warnings []string `json:"warnings,omitempty"`
}

// ReadScores reads the predictions in path as logits: probabilities p
// become ln p (rows renormalised), a single column is P(class 1) or the
// logit of class 1. What the file holds is decided by Classify, the rules
// ReadProbabilities follows too (LogitsChecked reads as Logits here).
func ReadScores(path string, mode Mode) (Scores, error) {
	if mode == LogitsChecked {
		mode = Logits
	}
	if err := mode.check(); err != nil {
		return Scores{}, err
	}
	data, rows, cols, err := arrays.Read(path)
	if err != nil {
		return Scores{}, err
	}
	s := Scores{Path: path, Rows: rows, Cols: cols}
	if rows == 0 {
		return s, fileErr(path, "no rows")
	}
	if err := checkFinite(path, data, cols); err != nil {
		return s, err
	}
	c, err := Classify(path, data, cols, mode)
	if err != nil {
		return s, err
	}
	s.Kind, s.Warnings = string(c.Kind), c.Warnings
	s.How = "detected"
	if mode != Auto {
		s.How = "-input " + map[Kind]string{KindProbabilities: "probs", KindLogits: "logits"}[c.Kind]
	}
	if len(c.Warnings) > 0 {
		s.How += " (warning: every row looks like probabilities; the softmax of probabilities is nearly uniform)"
	}
	if s.Kind == string(KindProbabilities) && cols > 1 && c.Detection.Dev > 1e-12 {
		s.How += fmt.Sprintf("; rows renormalised (largest |sum − 1| = %.2g)", c.Detection.Dev)
	}
	s.K = max(cols, 2)
	// Rows of two or more columns become logits in place; one column
	// becomes two.
	s.Logits = data
	if cols == 1 {
		s.Logits = make([]float64, rows*s.K)
	}
	for i := range rows {
		row, z := data[i*cols:(i+1)*cols], s.Logits[i*s.K:(i+1)*s.K]
		switch {
		case cols == 1 && s.Kind == "logits":
			z[0], z[1] = 0, row[0]
		case cols == 1:
			z[0], z[1] = math.Log(max(1-row[0], probFloor)), math.Log(max(row[0], probFloor))
		case s.Kind == "logits":
		default:
			sum := rowSum(data, cols, i)
			if sum == 0 {
				return s, fileErr(path, "row %d: probabilities sum to 0", i+1)
			}
			for j, v := range row {
				z[j] = math.Log(max(v/sum, probFloor))
			}
		}
	}
	if cols == 1 {
		s.How += "; one column: P(class 1) or its logit, two classes"
	}
	return s, nil
}

// ReadLabelsFor reads labels for the rows of s and checks their range.
func ReadLabelsFor(path string, s Scores) ([]int, error) {
	y, err := arrays.ReadLabels(path)
	if err != nil {
		return nil, err
	}
	if len(y) != s.Rows {
		return nil, fileErr(path, "%d labels for the %d rows of %s", len(y), s.Rows, s.Path)
	}
	return y, checkLabels(path, y, s.K, s.Path)
}

// ReadFeatures reads a source and a target feature matrix for ns source
// and nt target predictions and checks their shapes and values; d is the
// number of features.
func ReadFeatures(srcPath, tgtPath string, ns, nt int) (src, tgt []float64, d int, err error) {
	src, rs, d, err := arrays.Read(srcPath)
	if err != nil {
		return nil, nil, 0, err
	}
	tgt, rt, dt, err := arrays.Read(tgtPath)
	if err != nil {
		return nil, nil, 0, err
	}
	switch {
	case rs != ns:
		return nil, nil, 0, fileErr(srcPath, "%d rows, the source predictions have %d", rs, ns)
	case rt != nt:
		return nil, nil, 0, fileErr(tgtPath, "%d rows, the target predictions have %d", rt, nt)
	case dt != d:
		return nil, nil, 0, fmt.Errorf("%s has %d features, %s has %d", srcPath, d, tgtPath, dt)
	}
	if err := checkFinite(srcPath, src, d); err != nil {
		return nil, nil, 0, err
	}
	if err := checkFinite(tgtPath, tgt, d); err != nil {
		return nil, nil, 0, err
	}
	return src, tgt, d, nil
}
