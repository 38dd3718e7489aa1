package main

import (
	"errors"
	"testing"

	"github.com/ecl-go/ecl/kernels/cuda"
)

// TestTarget: -device cpu runs on the CPU with nothing to wait for; an
// unknown device is an error naming it; cuda without CUDA built in is
// cuda.ErrNoCUDA, never the CPU (with CUDA built in it is the GPU, and CI
// runs the table on the emulator).
func TestTarget(t *testing.T) {
	on, err := target("cpu")
	if err != nil || on.Wait != nil || on.Dev == nil {
		t.Errorf("cpu: %+v, %v", on, err)
	}
	if _, err := target("gpu"); err == nil || err.Error() != `-device "gpu": want cpu or cuda` {
		t.Errorf("gpu: %v", err)
	}
	on, err = target("cuda")
	if errors.Is(err, cuda.ErrNoCUDA) {
		return
	}
	if err != nil || on.Wait == nil || on.Dev == nil {
		t.Errorf("cuda: %+v, %v", on, err)
	}
}
