package main

import (
	"fmt"

	"github.com/ecl-go/ecl/experiment"
	"github.com/ecl-go/ecl/kernels/cuda"
)

// openDevice sets c's device from the -device flag: cpu (the default), or
// cuda, which fails with cuda.ErrNoCUDA's message in a build without CUDA
// rather than falling back to the CPU.
func openDevice(name string, c *experiment.DigitsConfig) error {
	switch name {
	case "cpu":
		return nil
	case "cuda":
		dev, err := cuda.New[float32]()
		if err != nil {
			return fmt.Errorf("-device cuda: %w", err)
		}
		c.Device, c.Dev = "cuda", dev
		return nil
	}
	return fmt.Errorf("-device %q: want cpu or cuda", name)
}
