package bench

import (
	"testing"
	"time"

	"github.com/ecl-go/ecl/tensor"
)

func BenchmarkKernels(b *testing.B) {
	for _, c := range Cases() {
		b.Run(c.Name, func(b *testing.B) { Bench(b, c) })
	}
}

// TestCasesRun runs every workload once, so that a broken case fails the
// ordinary test run rather than a benchmark run.
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
			pass, _ := c.InputPass()
			pass()
		}
	}
}

// BenchmarkTrainStep times a training step of each network on a batch of
// 100 and reports images per second, allocations and the process CPU time
// per step (cpu-ns/op, which a busy machine inflates less than ns/op).
func BenchmarkTrainStep(b *testing.B) {
	for _, name := range []string{"lenet5", "resnet20", "densenet40"} {
		b.Run(name, func(b *testing.B) {
			step, warm, start := TrainStep(name, 100, tensor.CPU[float32]{}), false, time.Duration(0)
			loop(b, func() {
				step()
				if !warm { // the untimed warm-up call
					warm, start = true, processCPU()
				}
			})
			reportCPU(b, start)
			b.ReportMetric(100*float64(b.N)/b.Elapsed().Seconds(), "images/s")
		})
	}
}

// BenchmarkECLLoss times the ECL loss forward and backward (ECLCases).
func BenchmarkECLLoss(b *testing.B) {
	for _, c := range ECLCases() {
		b.Run(c.Name(), func(b *testing.B) { BenchECL(b, c, OnCPU) })
	}
}

// TestCalibCasesRun runs every calibration workload on a small instance of
// its kind (the listed sizes take seconds to minutes) and checks the names.
func TestCalibCasesRun(t *testing.T) {
	names := map[string]bool{}
	for _, c := range CalibCases() {
		names[c.Name()] = true
		c.K, c.N = 5, 300
		c.Setup()()
	}
	for _, want := range []string{"calib/ts/k100/n10000", "calib/dirichlet/k1000/n50000", "calib/eval-bootstrap100/k1000/n50000"} {
		if !names[want] {
			t.Errorf("no row %s among %v", want, names)
		}
	}
}
