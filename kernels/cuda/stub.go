//go:build !cuda

package cuda

import "github.com/ecl-go/ecl/tensor"

// The backend of a build without the cuda tag: every entry point reports
// ErrNoCUDA.

func newDevice[T tensor.Float]() (tensor.Device[T], error) { return nil, ErrNoCUDA }

func syncAll() error { return ErrNoCUDA }

func bytesInUse() int64 { return 0 }

func transfers() Transfers { return Transfers{} }

func softmaxRows[T tensor.Float](*tensor.Tensor[T], bool) (*tensor.Tensor[T], error) {
	return nil, ErrNoCUDA
}

func hardBinSums[T tensor.Float](_, _ *tensor.Tensor[T], _ int) (_, _ *tensor.Tensor[T], _ error) {
	return nil, nil, ErrNoCUDA
}

func adamStep[T tensor.Float](_, _, _, _ *tensor.Tensor[T], _ tensor.AdamUpdate) error {
	return ErrNoCUDA
}
