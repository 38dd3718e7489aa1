package predict

import (
	"fmt"
	"math"
	"slices"
)

// RoundTol is how far a row of probabilities may sum from 1 and still be
// taken as probabilities (rounded, and renormalised when read): values
// rounded to 3 decimals are off by at most K·5e-4.
const RoundTol = 1e-2

// Detection is what Detect found in a matrix.
type Detection struct {
	// InUnit: every entry lies in [0, 1].
	InUnit bool
	// Dev is the largest |row sum − 1| and Worst its row (0-based); both
	// are 0 for a single column, which has no row sum to check.
	Dev   float64
	Worst int
	// Probabilities: InUnit, and Dev ≤ RoundTol.
	Probabilities bool
}

// Detect looks at finite data [rows, cols] and says whether it holds
// probabilities (see the package documentation).
func Detect(data []float64, cols int) Detection {
	d := Detection{InUnit: true}
	for i := 0; i < len(data); i += cols {
		for _, v := range data[i : i+cols] {
			d.InUnit = d.InUnit && v >= 0 && v <= 1
		}
		if cols == 1 {
			continue
		}
		if dev := math.Abs(rowSum(data, cols, i/cols) - 1); dev > d.Dev {
			d.Dev, d.Worst = dev, i/cols
		}
	}
	d.Probabilities = d.InUnit && d.Dev <= RoundTol
	return d
}

func rowSum(p []float64, k, row int) float64 {
	s := 0.0
	for _, v := range p[row*k : (row+1)*k] {
		s += v
	}
	return s
}

// Kind is what a prediction file holds, as Classify decides it.
type Kind string

const (
	KindProbabilities Kind = "probabilities"
	KindLogits        Kind = "logits"
)

// Classification is Classify's decision for a file: its Kind, what was
// detected or repaired on the way (Notes), and Warnings that a command
// prints before its results (a choice the user forced that makes them
// doubtful).
type Classification struct {
	Kind      Kind
	Detection Detection
	Notes     []string
	Warnings  []string
}

// percentTol is how far a row of percentages may sum from 100.
const percentTol = 100 * RoundTol

// Classify decides, by one set of rules for every command, how the finite
// predictions data [rows, cols] of path are to be read in mode:
//   - Auto: probabilities when every entry lies in [0, 1] and rows sum to
//     1 within RoundTol; logits when some entry lies outside [0, 1], except
//     rows of percentages (entries in [0, 100] summing to 100), which are an
//     error saying to divide by 100; entries all in [0, 1] whose rows do not
//     sum to 1 (a sigmoid per class, multi-label scores) are an error naming
//     the row and the two ways on (-input probs renormalises each row,
//     -input logits reads them as logits).
//   - Probs: probabilities, rows renormalised (with a note) when they do not
//     sum to 1; an error for an entry outside [0, 1] or rows of percentages.
//   - Logits: logits, with a warning when every row is already probabilities
//     (their softmax is nearly uniform).
//   - LogitsChecked: logits, and an error for rows of probabilities.
func Classify(path string, data []float64, cols int, mode Mode) (Classification, error) {
	if err := mode.check(); err != nil {
		return Classification{}, err
	}
	d := Detect(data, cols)
	c := Classification{Detection: d}
	if mode != Logits && !d.InUnit && cols > 1 {
		if row, sum, ok := percentRows(data, cols); ok {
			return c, fileErr(path, "row %d sums to %v with entries in [0, 100]: probabilities in percent? ecl reads probabilities in [0, 1]: divide the file by 100", row+1, sum)
		}
	}
	switch mode {
	case Auto:
		switch {
		case d.Probabilities:
			c.Kind = KindProbabilities
		case d.InUnit && cols > 1:
			return c, fileErr(path, "every entry lies in [0, 1] but row %d sums to %v, not 1: per-class scores (a sigmoid per class, multi-label outputs?) are not one distribution per row; -input probs renormalises each row, -input logits reads the values as logits", d.Worst+1, rowSum(data, cols, d.Worst))
		case d.InUnit:
			c.Kind = KindProbabilities
		default:
			c.Kind = KindLogits
			c.Notes = append(c.Notes, fmt.Sprintf("%s: values outside [0, 1]: read as logits (softmax applied; -input probs to refuse)", path))
		}
	case Probs:
		if !d.InUnit {
			i := slices.IndexFunc(data, func(v float64) bool { return v < 0 || v > 1 })
			return c, fileErr(path, "-input probs, but row %d, column %d: %v is not a probability (-input logits for logits)", i/cols+1, i%cols+1, data[i])
		}
		c.Kind = KindProbabilities
	case Logits:
		c.Kind = KindLogits
		if d.Probabilities {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: -input logits, but every row is already probabilities (entries in [0, 1] summing to 1): their softmax is nearly uniform, so the metrics below describe that, not the model; drop -input logits", path))
		}
	case LogitsChecked:
		if d.Probabilities {
			return c, fileErr(path, "-logits, but every row is already probabilities (entries in [0, 1]%s); softmax would flatten them: drop -logits, or pass -input logits to force", map[bool]string{true: "", false: ", rows summing to 1"}[cols == 1])
		}
		c.Kind = KindLogits
	}
	if c.Kind == KindProbabilities && cols > 1 && d.Dev > 1e-9 {
		c.Notes = append(c.Notes, fmt.Sprintf("%s: rows sum to 1 only within %.2g (rounded values?): renormalised", path, d.Dev))
	}
	return c, nil
}

// percentRows reports whether every entry lies in [0, 100] and every row
// sums to 100 within percentTol, and the row farthest from 100.
func percentRows(data []float64, cols int) (row int, sum float64, ok bool) {
	worst := -1.0
	for i := 0; i < len(data); i += cols {
		s := 0.0
		for _, v := range data[i : i+cols] {
			if v < 0 || v > 100 {
				return 0, 0, false
			}
			s += v
		}
		if dev := math.Abs(s - 100); dev > percentTol {
			return 0, 0, false
		} else if dev > worst {
			worst, row, sum = dev, i/cols, s
		}
	}
	return row, sum, len(data) > 0
}
