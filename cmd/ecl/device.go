package main

import (
	"fmt"

	"github.com/ecl-go/ecl/kernels/cuda"
	"github.com/ecl-go/ecl/tensor"
)

// deviceFlag is the help of -device.
const deviceFlag = "where the models train: cpu, or cuda (GPU 0; needs a build with -tags cuda)"

// openDevice resolves -device: "" for cpu (the default), or "cuda" and the
// GPU, which fails with cuda.ErrNoCUDA's message in a build without CUDA
// rather than falling back to the CPU.
func openDevice[T tensor.Float](name string) (string, tensor.Device[T], error) {
	switch name {
	case "cpu":
		return "", nil, nil
	case "cuda":
		dev, err := cuda.New[T]()
		if err != nil {
			return "", nil, fmt.Errorf("-device cuda: %w", err)
		}
		return "cuda", dev, nil
	}
	return "", nil, fmt.Errorf("-device %q: want cpu or cuda", name)
}
