package nn

import (
	"fmt"
	"math/rand/v2"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

// Bottleneck is torchvision's ResNet bottleneck block, version 1.5 (the
// stride on the 3×3 convolution): relu(bn3(conv3(relu(bn2(conv2(relu(
// bn1(conv1(x))))))) + shortcut(x)), conv1 1×1 in→width, conv2 3×3
// width→width of the block's stride, conv3 1×1 width→out, all without
// bias. Where the block changes the shape the shortcut is downsample:
// a 1×1 convolution of the stride (downsample.0) and batch norm
// (downsample.1); else it is x. Its layers have torchvision's names.
type Bottleneck[T tensor.Float] struct {
	Vars[T]
	Conv1, Conv2, Conv3 *Conv2d[T]
	BN1, BN2, BN3       *BatchNorm2d[T]
	Down                *Conv2d[T]      // nil for the identity shortcut
	DownBN              *BatchNorm2d[T] // nil for the identity shortcut
}

// NewBottleneck creates in vb a block from in to out channels through
// width, its 3×3 convolution of the given stride, initialised as
// torchvision does (heConv's convolutions, batch norm γ = 1, β = 0).
func NewBottleneck[T tensor.Float](vb Vars[T], rng *rand.Rand, in, width, out, stride int) *Bottleneck[T] {
	b := &Bottleneck[T]{
		Vars:  vb,
		Conv1: heConv(vb.Sub("conv1"), rng, in, width, 1, 1), BN1: NewBatchNorm2d(vb.Sub("bn1"), width),
		Conv2: heConv(vb.Sub("conv2"), rng, width, width, 3, stride), BN2: NewBatchNorm2d(vb.Sub("bn2"), width),
		Conv3: heConv(vb.Sub("conv3"), rng, width, out, 1, 1), BN3: NewBatchNorm2d(vb.Sub("bn3"), out),
	}
	if stride != 1 || in != out {
		b.Down = heConv(vb.Sub("downsample.0"), rng, in, out, 1, stride)
		b.DownBN = NewBatchNorm2d(vb.Sub("downsample.1"), out)
	}
	return b
}

// Forward applies the block to x [N, in, H, W].
func (b *Bottleneck[T]) Forward(x *autograd.Var[T]) *autograd.Var[T] {
	h := b.BN1.AfterConv(b.Conv1, x, nil, true)
	h = b.BN2.AfterConv(b.Conv2, h, nil, true)
	shortcut := x
	if b.Down != nil {
		shortcut = b.DownBN.AfterConv(b.Down, x, nil, false)
	}
	return b.BN3.AfterConv(b.Conv3, h, shortcut, true)
}

// ResNetConfig is a torchvision bottleneck ResNet.
type ResNetConfig struct {
	// Blocks is the number of Bottleneck blocks of each stage, layer1 to
	// layer4: {3, 4, 6, 3} for ResNet-50, {3, 8, 36, 3} for ResNet-152.
	Blocks [4]int
	// Stem is the stem's channels and the first stage's planes, doubled
	// at each later stage: 64 in torchvision (smaller for tests).
	Stem int
	// WidthPerGroup sets each block's inner width, planes·WidthPerGroup/64:
	// 64, or 128 for Wide ResNet-50-2.
	WidthPerGroup int
	// Classes is fc's outputs; 0 leaves fc out, and Forward returns the
	// pooled features.
	Classes int
}

// ResNet50Config is torchvision's resnet50 with classes outputs (1000 for
// ImageNet's weights).
func ResNet50Config(classes int) ResNetConfig {
	return ResNetConfig{Blocks: [4]int{3, 4, 6, 3}, Stem: 64, WidthPerGroup: 64, Classes: classes}
}

// ResNet152Config is torchvision's resnet152.
func ResNet152Config(classes int) ResNetConfig {
	return ResNetConfig{Blocks: [4]int{3, 8, 36, 3}, Stem: 64, WidthPerGroup: 64, Classes: classes}
}

// WideResNet50x2Config is torchvision's wide_resnet50_2: ResNet-50 with
// every block's inner width doubled.
func WideResNet50x2Config(classes int) ResNetConfig {
	return ResNetConfig{Blocks: [4]int{3, 4, 6, 3}, Stem: 64, WidthPerGroup: 128, Classes: classes}
}

// ResNet is torchvision's bottleneck ResNet (torchvision.models.ResNet
// with Bottleneck): conv1 7×7/2 (3→Stem, no bias), bn1, ReLU, max pooling
// 3×3/2 padded by 1, the stages layer1 to layer4 of Bottleneck blocks
// (planes Stem·2^i, out 4·planes, stride 2 at the first block of layers
// 2 to 4), adaptive average pooling to 1×1, and fc. Its state has
// torchvision's state_dict names (num_batches_tracked aside), so that
// LoadPyTorch reads torchvision's .pth files into it.
type ResNet[T tensor.Float] struct {
	Vars[T]
	Conv1  *Conv2d[T]
	BN1    *BatchNorm2d[T]
	Stages [4][]*Bottleneck[T]
	FC     *Linear[T] // nil without classes
	// Width is the number of pooled features, fc's input: 2048 for
	// ResNet-50, -152 and Wide ResNet-50-2.
	Width int
}

// NewResNet creates in vb the ResNet of cfg, initialised as torchvision
// does.
func NewResNet[T tensor.Float](vb Vars[T], rng *rand.Rand, cfg ResNetConfig) *ResNet[T] {
	if cfg.Stem < 1 || cfg.WidthPerGroup < 1 || cfg.Classes < 0 || cfg.Stem*cfg.WidthPerGroup < 64 {
		panic(&tensor.ArgumentError{Op: "nn.NewResNet", Detail: fmt.Sprintf("config %+v", cfg)})
	}
	r := &ResNet[T]{
		Vars:  vb,
		Conv1: heConv(vb.Sub("conv1"), rng, 3, cfg.Stem, 7, 2),
		BN1:   NewBatchNorm2d(vb.Sub("bn1"), cfg.Stem),
	}
	in := cfg.Stem
	for s, n := range cfg.Blocks {
		if n < 1 {
			panic(&tensor.ArgumentError{Op: "nn.NewResNet", Detail: fmt.Sprintf("stage %d of %d blocks", s+1, n)})
		}
		planes := cfg.Stem << s
		width, out := planes*cfg.WidthPerGroup/64, 4*planes
		for i := range n {
			stride := 1
			if s > 0 && i == 0 {
				stride = 2
			}
			r.Stages[s] = append(r.Stages[s], NewBottleneck(vb.Sub(fmt.Sprintf("layer%d.%d", s+1, i)), rng, in, width, out, stride))
			in = out
		}
	}
	r.Width = in
	if cfg.Classes > 0 {
		r.FC = NewLinear(vb.Sub("fc"), rng, in, cfg.Classes)
	}
	return r
}

// ResNet50 is NewResNet(vb, rng, ResNet50Config(classes)).
func ResNet50[T tensor.Float](vb Vars[T], rng *rand.Rand, classes int) *ResNet[T] {
	return NewResNet(vb, rng, ResNet50Config(classes))
}

// ResNet152 is NewResNet(vb, rng, ResNet152Config(classes)).
func ResNet152[T tensor.Float](vb Vars[T], rng *rand.Rand, classes int) *ResNet[T] {
	return NewResNet(vb, rng, ResNet152Config(classes))
}

// WideResNet50x2 is NewResNet(vb, rng, WideResNet50x2Config(classes)).
func WideResNet50x2[T tensor.Float](vb Vars[T], rng *rand.Rand, classes int) *ResNet[T] {
	return NewResNet(vb, rng, WideResNet50x2Config(classes))
}

// Features maps x [N, 3, H, W] to the pooled features [N, Width].
func (r *ResNet[T]) Features(x *autograd.Var[T]) *autograd.Var[T] {
	h := imageNetStem(r.Conv1, r.BN1, x)
	for _, stage := range r.Stages {
		for _, b := range stage {
			h = b.Forward(h)
		}
	}
	return GlobalAvgPool[T]().Forward(h)
}

// Forward is fc(Features(x)), or Features(x) without fc.
func (r *ResNet[T]) Forward(x *autograd.Var[T]) *autograd.Var[T] {
	return headOn(r.Features(x), r.FC)
}

// imageNetStem is the stem of torchvision's ResNets and DenseNets:
// conv (7×7/2), batch norm, ReLU and max pooling 3×3/2 padded by 1.
func imageNetStem[T tensor.Float](conv *Conv2d[T], bn *BatchNorm2d[T], x *autograd.Var[T]) *autograd.Var[T] {
	h := bn.AfterConv(conv, x, nil, true)
	return autograd.MaxPool2D(h, 3, 3, tensor.ConvOptions{StrideH: 2, StrideW: 2, PadH: 1, PadW: 1})
}

// headOn is head(f), or f for a nil head.
func headOn[T tensor.Float](f *autograd.Var[T], head *Linear[T]) *autograd.Var[T] {
	if head == nil {
		return f
	}
	return head.Forward(f)
}
