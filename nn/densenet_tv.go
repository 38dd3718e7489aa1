package nn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

// BottleneckDenseLayer is torchvision's DenseNet-BC layer (_DenseLayer):
// it appends to x [N, C, H, W] the growth channels conv2(relu(norm2(
// conv1(relu(norm1(x)))))), conv1 1×1 C→bnSize·growth and conv2 3×3
// bnSize·growth→growth, both without bias. Its layers are named norm1,
// conv1, norm2 and conv2.
//
// On its own, a layer copies the whole concatenation, so a block of L
// layers would store O(L²) channels for backward. In a Sequential (as
// DenseNet runs its blocks), in training on the CPU, a run of consecutive
// layers and the TVTransition after them run as one autograd.DenseBlock
// instead, as DenseLayers do: one feature buffer that each layer appends
// to, norm1 and ReLU recomputed in the backward pass (Pleiss et al. 2017),
// and of each layer only conv1's output (bnSize·growth channels) kept,
// norm2 and its ReLU recomputed too: memory linear in depth. The results
// are the same up to rounding. On another device or in evaluation, the
// layers run as composed ops.
type BottleneckDenseLayer[T tensor.Float] struct {
	Vars[T]
	Norm1, Norm2 *BatchNorm2d[T]
	Conv1, Conv2 *Conv2d[T]
}

// NewBottleneckDenseLayer creates in vb a layer on in channels adding
// growth channels through bnSize·growth.
func NewBottleneckDenseLayer[T tensor.Float](vb Vars[T], rng *rand.Rand, in, growth, bnSize int) *BottleneckDenseLayer[T] {
	return &BottleneckDenseLayer[T]{
		Vars:  vb,
		Norm1: NewBatchNorm2d(vb.Sub("norm1"), in), Conv1: fanInConv(vb.Sub("conv1"), rng, in, bnSize*growth, 1, 1),
		Norm2: NewBatchNorm2d(vb.Sub("norm2"), bnSize*growth), Conv2: fanInConv(vb.Sub("conv2"), rng, bnSize*growth, growth, 3, 1),
	}
}

// Forward concatenates x and the new channels along the channel axis.
func (l *BottleneckDenseLayer[T]) Forward(x *autograd.Var[T]) *autograd.Var[T] {
	h := l.Conv1.Forward(l.Norm1.ForwardRelu(x, nil))
	return autograd.Concat(1, x, l.Conv2.Forward(l.Norm2.ForwardRelu(h, nil)))
}

// forwardRun runs l and the layers that follow it in rest as one dense
// block where it can (see BottleneckDenseLayer).
func (l *BottleneckDenseLayer[T]) forwardRun(x *autograd.Var[T], rest []Module[T]) (*autograd.Var[T], int) {
	return forwardBlock(l, x, rest)
}

// unit is l as a unit of a dense block, with its batch normalisations.
func (l *BottleneckDenseLayer[T]) unit() (autograd.DenseUnit[T], []*BatchNorm2d[T]) {
	return autograd.DenseUnit[T]{Gamma: l.Norm1.Gamma, Beta: l.Norm1.Beta, W: l.Conv2.W,
		Bottleneck: &autograd.DenseBottleneck[T]{W: l.Conv1.W, Gamma: l.Norm2.Gamma, Beta: l.Norm2.Beta}}, []*BatchNorm2d[T]{l.Norm1, l.Norm2}
}

// fanInConv is heConv with torchvision DenseNet's initialisation,
// N(0, 2/(in·k·k)) (kaiming_normal_ over the fan-in).
func fanInConv[T tensor.Float](vb Vars[T], rng *rand.Rand, in, out, k, stride int) *Conv2d[T] {
	c := heConv(vb, rng, in, out, k, stride)
	tensor.CopyInto(c.W.Value, tensor.Scale(c.W.Value, T(math.Sqrt(float64(out)/float64(in)))))
	return c
}

// DenseNetConfig is a torchvision DenseNet-BC.
type DenseNetConfig struct {
	Growth  int   // channels each layer adds: 32 (densenet121), 48 (densenet161)
	Blocks  []int // layers of each dense block: {6, 12, 24, 16} (121), {6, 12, 36, 24} (161)
	Init    int   // the stem's channels: 64 (121), 96 (161)
	BNSize  int   // the bottleneck's width in growths: 4
	Classes int   // classifier's outputs; 0 leaves it out and Forward returns the pooled features
}

// DenseNet121Config is torchvision's densenet121.
func DenseNet121Config(classes int) DenseNetConfig {
	return DenseNetConfig{Growth: 32, Blocks: []int{6, 12, 24, 16}, Init: 64, BNSize: 4, Classes: classes}
}

// DenseNet161Config is torchvision's densenet161.
func DenseNet161Config(classes int) DenseNetConfig {
	return DenseNetConfig{Growth: 48, Blocks: []int{6, 12, 36, 24}, Init: 96, BNSize: 4, Classes: classes}
}

// TVTransition is torchvision's DenseNet transition (_Transition):
// norm–ReLU–conv 1×1 (c→c/2, no bias)–average pooling 2×2, its layers
// named norm and conv.
type TVTransition[T tensor.Float] struct {
	Vars[T]
	Norm *BatchNorm2d[T]
	Conv *Conv2d[T]
}

// unit is t as the last unit of a dense block, with its batch
// normalisation.
func (t *TVTransition[T]) unit() (autograd.DenseUnit[T], []*BatchNorm2d[T]) {
	return autograd.DenseUnit[T]{Gamma: t.Norm.Gamma, Beta: t.Norm.Beta, W: t.Conv.W, Pool: true}, []*BatchNorm2d[T]{t.Norm}
}

// Forward is pool(conv(relu(norm(x)))).
func (t *TVTransition[T]) Forward(x *autograd.Var[T]) *autograd.Var[T] {
	return AvgPool2d[T](2, 2).Forward(t.Conv.Forward(t.Norm.ForwardRelu(x, nil)))
}

// DenseNet is torchvision's DenseNet (torchvision.models.DenseNet): under
// features, conv0 7×7/2 (3→Init, no bias), norm0, ReLU, max pooling 3×3/2
// padded by 1, denseblock1…N of BottleneckDenseLayers (denselayer1…)
// with transition1…N−1 between them halving the channels, norm5; then
// ReLU, adaptive average pooling to 1×1 and classifier. Its state has
// torchvision's state_dict names (num_batches_tracked aside).
type DenseNet[T tensor.Float] struct {
	Vars[T]
	Conv0       *Conv2d[T]
	Norm0       *BatchNorm2d[T]
	Blocks      [][]*BottleneckDenseLayer[T]
	Transitions []*TVTransition[T]
	Norm5       *BatchNorm2d[T]
	Classifier  *Linear[T] // nil without classes
	// Width is the number of pooled features: 1024 (densenet121), 2208
	// (densenet161).
	Width int
}

// NewDenseNet creates in vb the DenseNet of cfg, initialised as
// torchvision does (convolutions N(0, 2/fan_in), batch norm γ = 1, β = 0,
// classifier bias 0).
func NewDenseNet[T tensor.Float](vb Vars[T], rng *rand.Rand, cfg DenseNetConfig) *DenseNet[T] {
	if cfg.Growth < 1 || cfg.Init < 1 || cfg.BNSize < 1 || cfg.Classes < 0 || len(cfg.Blocks) == 0 {
		panic(&tensor.ArgumentError{Op: "nn.NewDenseNet", Detail: fmt.Sprintf("config %+v", cfg)})
	}
	f := vb.Sub("features")
	d := &DenseNet[T]{Vars: vb, Conv0: fanInConv(f.Sub("conv0"), rng, 3, cfg.Init, 7, 2), Norm0: NewBatchNorm2d(f.Sub("norm0"), cfg.Init)}
	c := cfg.Init
	for b, n := range cfg.Blocks {
		if n < 1 {
			panic(&tensor.ArgumentError{Op: "nn.NewDenseNet", Detail: fmt.Sprintf("block %d of %d layers", b+1, n)})
		}
		var block []*BottleneckDenseLayer[T]
		for i := range n {
			block = append(block, NewBottleneckDenseLayer(f.Sub(fmt.Sprintf("denseblock%d.denselayer%d", b+1, i+1)), rng, c, cfg.Growth, cfg.BNSize))
			c += cfg.Growth
		}
		d.Blocks = append(d.Blocks, block)
		if b < len(cfg.Blocks)-1 {
			tv := f.Sub(fmt.Sprintf("transition%d", b+1))
			d.Transitions = append(d.Transitions, &TVTransition[T]{Vars: tv, Norm: NewBatchNorm2d(tv.Sub("norm"), c), Conv: fanInConv(tv.Sub("conv"), rng, c, c/2, 1, 1)})
			c /= 2
		}
	}
	d.Norm5, d.Width = NewBatchNorm2d(f.Sub("norm5"), c), c
	if cfg.Classes > 0 {
		d.Classifier = NewLinear(vb.Sub("classifier"), rng, c, cfg.Classes)
		tensor.CopyInto(d.Classifier.B.Value, tensor.Zeros[T](cfg.Classes))
	}
	return d
}

// DenseNet121 is NewDenseNet(vb, rng, DenseNet121Config(classes)).
func DenseNet121[T tensor.Float](vb Vars[T], rng *rand.Rand, classes int) *DenseNet[T] {
	return NewDenseNet(vb, rng, DenseNet121Config(classes))
}

// DenseNet161 is NewDenseNet(vb, rng, DenseNet161Config(classes)).
func DenseNet161[T tensor.Float](vb Vars[T], rng *rand.Rand, classes int) *DenseNet[T] {
	return NewDenseNet(vb, rng, DenseNet161Config(classes))
}

// Features maps x [N, 3, H, W] to the pooled features [N, Width].
func (d *DenseNet[T]) Features(x *autograd.Var[T]) *autograd.Var[T] {
	h := imageNetStem(d.Conv0, d.Norm0, x)
	for b, block := range d.Blocks {
		// A Sequential, so that the block runs fused where it can (see
		// BottleneckDenseLayer).
		run := make(Sequential[T], 0, len(block)+1)
		for _, l := range block {
			run = append(run, l)
		}
		if b < len(d.Transitions) {
			run = append(run, d.Transitions[b])
		}
		h = run.Forward(h)
	}
	return GlobalAvgPool[T]().Forward(d.Norm5.ForwardRelu(h, nil))
}

// Forward is classifier(Features(x)), or Features(x) without classifier.
func (d *DenseNet[T]) Forward(x *autograd.Var[T]) *autograd.Var[T] {
	return headOn(d.Features(x), d.Classifier)
}
