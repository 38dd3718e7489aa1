//go:build cuda

package cuda_test

import (
	"strings"
	"testing"

	"github.com/ecl-go/ecl/tensor"
)

// TestUnknownReduceOpPanics: a reduction code the kernels do not know
// fails before any launch (their combine would take it for the minimum).
func TestUnknownReduceOpPanics(t *testing.T) {
	dev := gpu[float32](t)
	x := tensor.To(tensor.FromSlice([]float32{3, 1, 2}, 3), dev)
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "unknown reduce op 9") {
			t.Errorf("reduce op 9: recovered %v, want a panic naming it", r)
		}
	}()
	dev.Reduce(tensor.ReduceOp(9), tensor.ZerosOn(dev, 1), x, 0)
}
