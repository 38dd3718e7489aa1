//go:build !cuda

package cuda_test

import (
	"errors"
	"fmt"

	"github.com/ecl-go/ecl/kernels/cuda"
)

// Resolve a command's -device flag. "cpu" gives no device (the caller's
// CPU); in a build without the cuda tag "cuda" is an error wrapping
// ErrNoCUDA, never a silent fall back to the CPU.
func ExampleSelect() {
	dev, err := cuda.Select[float32]("cpu")
	fmt.Println(dev == nil, err)
	_, err = cuda.Select[float32]("cuda")
	fmt.Println(errors.Is(err, cuda.ErrNoCUDA), err)
	_, err = cuda.Select[float32]("tpu")
	fmt.Println(err)
	// Output:
	// true <nil>
	// true -device cuda: cuda: built without CUDA (build with -tags cuda)
	// -device "tpu": want cpu or cuda
}
