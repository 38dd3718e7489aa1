package bench

import (
	"testing"

	"github.com/ecl-go/ecl/tensor"
)

func BenchmarkKernels(b *testing.B) {
	for _, c := range Cases() {
		b.Run(c.Name, func(b *testing.B) { Bench(b, c) })
	}
}

// TestCasesRun runs every workload once, so that a broken case fails the
// ordinary test run rather than the benchmark session.
func TestCasesRun(t *testing.T) {
	for _, c := range Cases() {
		if c.Flops <= 0 {
			t.Errorf("%s: flops %v", c.Name, c.Flops)
		}
		if testing.Short() && c.Flops > 1e9 {
			continue
		}
		c.Setup()()
	}
	for name := range Nets {
		TrainStep(name, 2, tensor.CPU[float32]{})()
	}
	for _, c := range ECLCases() {
		if c.N <= 100 {
			c.Setup()()
		}
	}
}

// BenchmarkTrainStep times a training step of each network on a batch of
// 100 and reports images per second and allocations per step.
func BenchmarkTrainStep(b *testing.B) {
	for _, name := range []string{"lenet5", "resnet20", "densenet40"} {
		b.Run(name, func(b *testing.B) {
			loop(b, TrainStep(name, 100, tensor.CPU[float32]{}))
			b.ReportMetric(100*float64(b.N)/b.Elapsed().Seconds(), "images/s")
		})
	}
}

// BenchmarkECLLoss times the ECL loss forward and backward (ECLCases).
func BenchmarkECLLoss(b *testing.B) {
	for _, c := range ECLCases() {
		b.Run(c.Name(), func(b *testing.B) { BenchECL(b, c) })
	}
}
