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

// denseNetSteps are the torchvision DenseNet-BCs whose training step
// BenchmarkDenseNetBCStep measures: two blocks of 6 and 12 layers at growth
// 32 on 32×32 images in batches of 8, and densenet121 on 64×64 images and
// on ImageNet's 224×224 in batches of 2.
var denseNetSteps = []struct {
	name    string
	cfg     nn.DenseNetConfig
	n, size int
}{
	{name: "bc-6-12/32px/batch8", cfg: nn.DenseNetConfig{Growth: 32, Blocks: []int{6, 12}, Init: 64, BNSize: 4, Classes: 10}, n: 8, size: 32},
	{name: "densenet121/64px/batch2", cfg: nn.DenseNet121Config(10), n: 2, size: 64},
	{name: "densenet121/224px/batch2", cfg: nn.DenseNet121Config(1000), n: 2, size: 224},
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
// measured on separate steps before the timed ones (stepHeap): kept-B/op,
// the live heap that the forward pass leaves for the backward pass, and
// peak-B/op, the high-water of the heap's objects during a step (polled
// every 100 µs, less the live heap before the step; garbage not yet
// collected counts, so it depends on the collector's pacing).
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

// stepHeap returns the live heap that a forward pass keeps for the
// backward pass, measured as the heap that dropping its graph frees (after
// a warm-up step), and the polled peak of the heap's objects in the next
// step, less the live heap before it. (Nothing runs on the cores between
// the two measurements of the first: the idle workers keep the last
// closure they ran, and with it whatever buffer it captured, so a base
// taken before a step would move with what ran last.)
func stepHeap(zero func(), forward func() *autograd.Var[float32]) (kept, peak uint64) {
	var ms runtime.MemStats
	live := func() uint64 {
		runtime.GC()
		runtime.GC() // the first keeps sync.Pool's scratch buffers one more cycle
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	forward().Backward() // warm-up
	zero()
	loss := forward()
	withGraph := live()
	runtime.KeepAlive(loss)
	base := live()
	kept = max(withGraph, base) - base

	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
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
	return kept, max(peak, base) - base
}

// TestDenseNetStepRuns runs the benchmark's step once at a tiny size, so
// that a broken step fails the ordinary test run.
func TestDenseNetStepRuns(t *testing.T) {
	zero, forward := denseNetStep(nn.DenseNetConfig{Growth: 4, Blocks: []int{2, 2}, Init: 8, BNSize: 2, Classes: 3}, 2, 16)
	if kept, _ := stepHeap(zero, forward); kept == 0 {
		t.Errorf("the forward pass kept no heap")
	}
}
