package tensor

import (
	"errors"
	"testing"
)

// TestDenseBlockBottleneckShapes: a unit with a bottleneck whose shapes do
// not chain, or that pools, panics with a *ShapeError naming the unit and
// the bottleneck's shapes; one that chains runs.
func TestDenseBlockBottleneckShapes(t *testing.T) {
	x := Zeros[float64](1, 2, 4, 4)
	unit := func(neck, gamma2, in, k, kw int, pool bool) []DenseUnit[float64] {
		return []DenseUnit[float64]{{Gamma: Ones[float64](2), Beta: Zeros[float64](2), W: Zeros[float64](3, in, kw, kw), Pool: pool,
			Bottleneck: &DenseBottleneck[float64]{W: Zeros[float64](neck, 2, k, k), Gamma: Ones[float64](gamma2), Beta: Zeros[float64](gamma2)}}}
	}
	if y, _ := DenseBlock(x, unit(5, 5, 5, 1, 3, false), 1e-5); y.Dim(1) != 5 {
		t.Errorf("output %v, want 5 channels", y.Shape())
	}
	for name, units := range map[string][]DenseUnit[float64]{
		"γ₂ of 4 for 5 channels": unit(5, 4, 5, 1, 3, false),
		"W on 4 channels":        unit(5, 5, 4, 1, 3, false),
		"even kernel":            unit(5, 5, 5, 2, 3, false),
		"pooled":                 unit(5, 5, 5, 1, 1, true),
	} {
		f := func() { DenseBlock(x, units, 1e-5) }
		mustPanic(t, f, "tensor.DenseBlock", "unit 0", "bottleneck weight")
		if err := panicError(f); !errors.Is(err, ErrShape) {
			t.Errorf("%s: panic %v, want a shape error", name, err)
		}
	}
}
