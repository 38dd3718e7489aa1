package main

import (
	"github.com/ecl-go/ecl/kernels/cuda"
	"github.com/ecl-go/ecl/tensor"
)

// deviceFlag is the help of -device.
const deviceFlag = "where the models train: cpu, or cuda (GPU 0; needs a build with -tags cuda)"

// openDevice resolves -device (cuda.Select): "" and nil for cpu (the
// default), or "cuda" and the GPU.
func openDevice[T tensor.Float](name string) (string, tensor.Device[T], error) {
	dev, err := cuda.Select[T](name)
	if err != nil || dev == nil {
		return "", nil, err
	}
	return "cuda", dev, nil
}
