package predict

import "math"

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
