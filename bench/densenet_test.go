package bench

import (
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/nn"
	"github.com/ecl-go/ecl/tensor"
)

// denseNetSteps are the small torchvision DenseNet-BCs whose training step
// BenchmarkDenseNetBCStep measures: two blocks of 6 and 12 layers at growth
// 32 on 32×32 images in batches of 8, and densenet121 on 64×64 images in
// batches of 2.
var denseNetSteps = []struct {
	name    string
	cfg     nn.DenseNetConfig
	n, size int
}{
	{name: "bc-6-12/32px/batch8", cfg: nn.DenseNetConfig{Growth: 32, Blocks: []int{6, 12}, Init: 64, BNSize: 4, Classes: 10}, n: 8, size: 32},
	{name: "densenet121/64px/batch2", cfg: nn.DenseNet121Config(10), n: 2, size: 64},
}

// denseNetStep is a training step of a DenseNet-BC on the CPU in float32,
// in fresh memory (no arena, so that the allocations are every buffer a
// step makes), without an optimiser: zero clears the gradients, forward is
// the loss, whose Backward ends the step.
func denseNetStep(cfg nn.DenseNetConfig, n, size int) (zero func(), forward func() *autograd.Var[float32]) {
	r := rand.New(rand.NewPCG(1, 2))
	m := nn.NewDenseNet(nn.NewVars[float32](), r, cfg)
	x := autograd.Const(tensor.RandUniform[float32](r, 0, 1, n, 3, size, size))
	labels := make([]int, n)
	for i := range labels {
		labels[i] = r.IntN(cfg.Classes)
	}
	return func() { nn.ZeroGrad[float32](m) }, func() *autograd.Var[float32] { return nn.CrossEntropy(m.Forward(x), labels) }
}

// BenchmarkDenseNetBCStep times a training step of each of denseNetSteps
// and reports, besides time, process CPU time (cpu-ns/op, as
// BenchmarkTrainStep) and allocations per step, two heap sizes
// measured on separate steps before the timed ones: kept-B/op, the live
// heap that the forward pass leaves for the backward pass (after a
// collection, less the live heap before it), and peak-B/op, the high-water
// of the heap's objects during a step (polled every 100 µs, less the live
// heap before it; garbage not yet collected counts, so it depends on the
// collector's pacing).
func BenchmarkDenseNetBCStep(b *testing.B) {
	for _, c := range denseNetSteps {
		b.Run(c.name, func(b *testing.B) {
			zero, forward := denseNetStep(c.cfg, c.n, c.size)
			kept, peak := stepHeap(zero, forward)
			warm, start := false, time.Duration(0)
			loop(b, func() {
				zero()
				forward().Backward()
				if !warm { // the untimed warm-up call
					warm, start = true, processCPU()
				}
			})
			reportCPU(b, start)
			b.ReportMetric(float64(kept), "kept-B/op")
			b.ReportMetric(float64(peak), "peak-B/op")
		})
	}
}

// stepHeap runs two steps (zero, forward and Backward) and returns the
// live heap kept between the passes of the first and the polled peak of
// the second, each less the live heap after zero.
func stepHeap(zero func(), forward func() *autograd.Var[float32]) (kept, peak uint64) {
	var ms runtime.MemStats
	live := func() uint64 {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	zero()
	base := live()
	loss := forward()
	kept = live() - base
	loss.Backward()

	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	zero()
	base = live()
	done, stopped := make(chan struct{}), sync.WaitGroup{}
	stopped.Add(1)
	go func() {
		defer stopped.Done()
		t := time.NewTicker(100 * time.Microsecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	forward().Backward()
	close(done)
	stopped.Wait()
	if peak < base {
		return kept, 0
	}
	return kept, peak - base
}

// TestDenseNetStepRuns runs the benchmark's step once at a tiny size, so
// that a broken step fails the ordinary test run.
func TestDenseNetStepRuns(t *testing.T) {
	zero, forward := denseNetStep(nn.DenseNetConfig{Growth: 4, Blocks: []int{2, 2}, Init: 8, BNSize: 2, Classes: 3}, 2, 16)
	if kept, _ := stepHeap(zero, forward); kept == 0 {
		t.Errorf("the forward pass kept no heap")
	}
}
