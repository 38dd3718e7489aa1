//go:build !cuda

package cuda

import (
	"errors"
	"testing"

	"github.com/ecl-go/ecl/optim"
	"github.com/ecl-go/ecl/tensor"
)

// TestEntryPointsReportTheBuild: without the cuda tag every entry point
// returns ErrNoCUDA (after the shape checks, which are the same in both
// builds).
func TestEntryPointsReportTheBuild(t *testing.T) {
	_, err := New[float32]()
	_, err64 := New[float64]()
	x := tensor.Zeros[float32](2, 3)
	_, errSm := Softmax(x)
	_, errLsm := LogSoftmax(x)
	_, _, errH := HardBinSums(tensor.Zeros[float32](2, 1), tensor.Zeros[float32](2, 1, 3), 4)
	errAdam := AdamStep(x, x, x, x, optim.AdamUpdate{Step: 1})
	for i, e := range []error{err, err64, Sync(), errSm, errLsm, errH, errAdam} {
		if !errors.Is(e, ErrNoCUDA) {
			t.Errorf("entry point %d: error %v, want ErrNoCUDA", i, e)
		}
	}
	if BytesInUse() != 0 {
		t.Errorf("BytesInUse = %d without a device", BytesInUse())
	}
	if TransferCount() != (Transfers{}) {
		t.Errorf("TransferCount = %+v without a device", TransferCount())
	}
	if got := ErrNoCUDA.Error(); got != "cuda: built without CUDA (build with -tags cuda)" {
		t.Errorf("ErrNoCUDA = %q", got)
	}
}
