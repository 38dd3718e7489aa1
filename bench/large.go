package bench

import (
	"io"
	"math/rand/v2"
	"runtime/pprof"
	"testing"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/nn"
	"github.com/ecl-go/ecl/optim"
	"github.com/ecl-go/ecl/tensor"
)

// LargeNets are the paper's large networks whose inference and training
// step are measured at 224×224 (torchvision's ResNet-50, Wide
// ResNet-50-2, DenseNet-121 and ViT-B/16, 1000 classes, random weights), by
// the names torchvision gives them.
var LargeNets = map[string]func(r *rand.Rand) nn.Module[float32]{
	"resnet50":    func(r *rand.Rand) nn.Module[float32] { return nn.ResNet50(nn.NewVars[float32](), r, 1000) },
	"densenet121": func(r *rand.Rand) nn.Module[float32] { return nn.DenseNet121(nn.NewVars[float32](), r, 1000) },
	"wide_resnet50_2": func(r *rand.Rand) nn.Module[float32] {
		return nn.WideResNet50x2(nn.NewVars[float32](), r, 1000)
	},
	"vit_b_16": func(r *rand.Rand) nn.Module[float32] { return nn.ViTB16(nn.NewVars[float32](), r, 1000) },
}

// LargeOrder is the order in which the tables list LargeNets.
var LargeOrder = []string{"resnet50", "wide_resnet50_2", "densenet121", "vit_b_16"}

// Large batch sizes: inference at 8 images, a training step at 16.
const (
	LargeInferBatch = 8
	LargeTrainBatch = 16
)

// LargeStep returns inference (train false: evaluation mode, forward only,
// batch LargeInferBatch) or a training step (forward, cross-entropy,
// backward, Adam; batch LargeTrainBatch) of the large network called net on
// random 224×224 images, float32, on dev, and the model it runs.
func LargeStep(net string, train bool, dev tensor.Device[float32]) (func(), nn.Module[float32]) {
	r := rng()
	m := LargeNets[net](r)
	nn.ToDevice(m, dev)
	n := LargeInferBatch
	if train {
		n = LargeTrainBatch
	}
	x := autograd.Const(tensor.To(tensor.RandUniform[float32](r, 0, 1, n, 3, 224, 224), dev))
	m.SetTraining(train)
	var arena tensor.Arena[float32]
	if !train {
		// As the peer's torch.inference_mode and ecl features: no graph.
		return func() { arena.Do(func() { autograd.NoGrad(func() { m.Forward(x) }) }) }, m
	}
	labels := make([]int, n)
	for i := range labels {
		labels[i] = r.IntN(1000)
	}
	opt := optim.NewAdam(m.Params(), 1e-3, 0)
	return func() {
		nn.ZeroGrad(m)
		arena.Do(func() { nn.CrossEntropy(m.Forward(x), labels).Backward() })
		opt.Step()
	}, m
}

// MeasureLarge runs LargeStep on o as a benchmark, a warm-up call untimed,
// and for inference one more: the first call with unchanged weights
// notes them, the second keeps their transformed Winograd filters
// (tensor.SetWinogradCache), as the calls over a data set do.
func MeasureLarge(net string, train bool, o On) testing.BenchmarkResult {
	step := warmLarge(net, train, o)
	return testing.Benchmark(func(b *testing.B) { loop(b, step) })
}

// warmLarge is LargeStep on o after the warm-up calls that leave it in its
// steady state: one, and for inference one more (the filters kept).
func warmLarge(net string, train bool, o On) func() {
	run, _ := LargeStep(net, train, o.Dev)
	step := o.timed(run)
	step()
	if !train {
		step()
	}
	return step
}

// ProfileLarge writes to w the CPU profile (runtime/pprof) of calls calls
// of LargeStep on o in its steady state: after warmLarge's calls, so that
// neither the model's construction nor the first calls' page faults are
// in it.
func ProfileLarge(net string, train bool, o On, calls int, w io.Writer) error {
	step := warmLarge(net, train, o)
	if err := pprof.StartCPUProfile(w); err != nil {
		return err
	}
	defer pprof.StopCPUProfile()
	for range calls {
		step()
	}
	return nil
}
