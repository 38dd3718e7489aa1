package cuda

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ecl-go/ecl/tensor"
)

// The references against the engine's own tensor ops, so that the kernels
// tested against them in the cuda build are tested against what ecl
// computes.

func closeTo[T tensor.Float](t *testing.T, what string, got, want []T, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		g, w := float64(got[i]), float64(want[i])
		if math.Abs(g-w) > tol*(1+math.Abs(w)) || math.IsNaN(g) != math.IsNaN(w) {
			t.Fatalf("%s: element %d = %v, want %v", what, i, g, w)
		}
	}
}

// TestHardBinSumsCPU: hard sums are the soft statistics (tensor.BinStats)
// of a one-hot assignment.
func TestHardBinSumsCPU(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	const n, g, b, d = 50, 3, 7, 2
	idx := make([]int, n*g)
	bins := make([]float32, n*g)
	for i := range idx {
		idx[i] = r.IntN(b)
		bins[i] = float32(idx[i])
	}
	v := tensor.RandUniform[float32](r, 0, 1, n, g, d)
	count, sum, err := HardBinSumsCPU(tensor.FromSlice(bins, n, g), v, b)
	if err != nil {
		t.Fatal(err)
	}
	stats := tensor.BinStats(tensor.Reshape(tensor.OneHot[float32](idx, b), n, g, b), v)
	wantN, wantM := tensor.Contiguous(tensor.Narrow(stats, 2, 0, 1)), tensor.Contiguous(tensor.Narrow(stats, 2, 1, d))
	closeTo(t, "count", count.Data(), wantN.Data(), 0)
	closeTo(t, "sum", sum.Data(), wantM.Data(), 1e-6)

	bins[7] = 2.5
	if _, _, err := HardBinSumsCPU(tensor.FromSlice(bins, n, g), v, b); err == nil {
		t.Error("bin 2.5 accepted")
	}
	bins[7] = float32(b)
	if _, _, err := HardBinSumsCPU(tensor.FromSlice(bins, n, g), v, b); err == nil {
		t.Errorf("bin %d of %d accepted", b, b)
	}
}
