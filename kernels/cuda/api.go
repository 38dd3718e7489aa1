package cuda

import (
	"errors"
	"fmt"

	"github.com/ecl-go/ecl/tensor"
)

// The exported API, identical with and without the cuda build tag: the
// functions check their arguments here and call the backend (the device
// files with the tag, stub.go without).

// ErrNoCUDA is returned by every entry point of a build without the cuda tag.
var ErrNoCUDA = errors.New("cuda: built without CUDA (build with -tags cuda)")

// New returns the CUDA device (GPU 0) for element type T. Every call returns
// the same device, so tensors made through different calls can be combined.
func New[T tensor.Float]() (tensor.Device[T], error) { return newDevice[T]() }

// Select resolves a command's -device flag: nil for "cpu" (the caller's
// CPU device), GPU 0 for "cuda" (in a build without CUDA an error wrapping
// ErrNoCUDA, never the CPU), an error for any other name.
func Select[T tensor.Float](name string) (tensor.Device[T], error) {
	switch name {
	case "cpu":
		return nil, nil
	case "cuda":
		dev, err := New[T]()
		if err != nil {
			return nil, fmt.Errorf("-device cuda: %w", err)
		}
		return dev, nil
	}
	return nil, fmt.Errorf("-device %q: want cpu or cuda", name)
}

// Sync waits until the GPU has finished all queued work and reports an error
// of any kernel that ran since the last synchronisation.
func Sync() error { return syncAll() }

// BytesInUse is the device memory held by live buffers, in bytes (rounded up
// to the allocator's size classes).
func BytesInUse() int64 { return bytesInUse() }

// Transfers counts the copies between host and device memory since the
// device was opened: each a call of the driver's copy, whatever its size.
type Transfers struct {
	// Uploads are tensors' data copied to the device (Device.Upload, as by
	// tensor.FromSliceOn and tensor.To).
	Uploads int64
	// Downloads are copies back to the host (Device.Download, as by
	// Tensor.Data), each of which waits for the queued work.
	Downloads int64
	// Records are the small integer arrays uploaded with a launch: the
	// shapes and strides of strided operands, and Gather's and
	// ScatterAdd's indices.
	Records int64
}

// TransferCount returns the transfers made so far (zero in a build without
// the cuda tag); differences of two counts measure a piece of work.
func TransferCount() Transfers { return transfers() }

// Softmax is tensor.Softmax along the last axis of a tensor on the CUDA
// device, in one kernel.
func Softmax[T tensor.Float](x *tensor.Tensor[T]) (*tensor.Tensor[T], error) {
	lastAxis("Softmax", x)
	return softmaxRows(x, false)
}

// LogSoftmax is tensor.LogSoftmax along the last axis, in one kernel.
func LogSoftmax[T tensor.Float](x *tensor.Tensor[T]) (*tensor.Tensor[T], error) {
	lastAxis("LogSoftmax", x)
	return softmaxRows(x, true)
}

func lastAxis[T tensor.Float](op string, x *tensor.Tensor[T]) {
	if x.Dims() < 1 {
		panic(&tensor.ShapeError{Op: "cuda." + op, Shapes: [][]int{x.Shape()}, Detail: "scalar input; want at least one axis"})
	}
}

// HardBinSums is one domain's hard per-bin sums for the binned metrics: with
// bin [N, G] holding each sample's bin in [0, bins) (as values of T, such as
// ArgMax gives), count [G, bins] is the number of samples in each bin and
// sum [G, bins, D] the sum of v [N, G, D] over them. A bin index that is not
// an integer in [0, bins) is an error. The counts are exact; the sums
// accumulate through atomics, so their rounding may vary between runs.
func HardBinSums[T tensor.Float](bin, v *tensor.Tensor[T], bins int) (count, sum *tensor.Tensor[T], err error) {
	hardShapes(bin.Shape(), v.Shape(), bins)
	return hardBinSums(bin, v, bins)
}

func hardShapes(bin, v []int, bins int) (n, g, d int) {
	if len(bin) != 2 || len(v) != 3 || bin[0] != v[0] || bin[1] != v[1] || bins < 1 {
		panic(&tensor.ShapeError{Op: "cuda.HardBinSums", Shapes: [][]int{bin, v}, Detail: fmt.Sprintf("bins %v, values %v, %d bins; want [N, G], [N, G, D] and at least 1 bin", bin, v, bins)})
	}
	return v[0], v[1], v[2]
}

// AdamStep applies one Adam update in place to the parameter p and its
// moments m, v (zero before the first step) from the gradient g, all of one
// shape and contiguous: the result equals optim.AdamHost's bit for bit.
// optim.Adam calls it through tensor.AdamKernel, whose body it is on the
// CUDA device.
func AdamStep[T tensor.Float](p, g, m, v *tensor.Tensor[T], h tensor.AdamUpdate) error {
	tensor.AdamShapes("cuda.AdamStep", p, g, m, v)
	return adamStep(p, g, m, v, h)
}
