package nn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

// BasicBlock is the residual block of the CIFAR ResNets (He et al. 2016):
// relu(bn2(conv2(relu(bn1(conv1(x))))) + shortcut(x)) with 3×3 convolutions
// without bias, conv1 carrying the stride. Where the block changes the shape
// the shortcut is the paper's option A for CIFAR: x subsampled with the
// stride and zero channels padded on both sides, which adds no parameters.
// Its layers are named conv1, bn1, conv2 and bn2, as in torchvision.
type BasicBlock[T tensor.Float] struct {
	Vars[T]
	Conv1, Conv2 *Conv2d[T]
	BN1, BN2     *BatchNorm2d[T]
}

// NewBasicBlock creates in vb a block from in to out ≥ in channels, its
// first convolution of the given stride.
func NewBasicBlock[T tensor.Float](vb Vars[T], rng *rand.Rand, in, out, stride int) *BasicBlock[T] {
	if out < in {
		panic(&tensor.ArgumentError{Op: "nn.BasicBlock", Detail: fmt.Sprintf("%d → %d channels; the zero-padding shortcut cannot shrink", in, out)})
	}
	return &BasicBlock[T]{
		Vars:  vb,
		Conv1: heConv(vb.Sub("conv1"), rng, in, out, 3, stride), BN1: NewBatchNorm2d(vb.Sub("bn1"), out),
		Conv2: heConv(vb.Sub("conv2"), rng, out, out, 3, 1), BN2: NewBatchNorm2d(vb.Sub("bn2"), out),
	}
}

// Forward applies the block to x [N, in, H, W].
func (b *BasicBlock[T]) Forward(x *autograd.Var[T]) *autograd.Var[T] {
	h := b.BN1.AfterConv(b.Conv1, x, nil, true)
	return b.BN2.AfterConv(b.Conv2, h, b.shortcut(x), true)
}

// shortcut is x, subsampled (a 1×1 pooling window with the stride) and
// padded with zero channels when the block changes the shape.
func (b *BasicBlock[T]) shortcut(x *autograd.Var[T]) *autograd.Var[T] {
	if s := b.Conv1.Opt.StrideH; s > 1 {
		x = autograd.AvgPool2D(x, 1, 1, tensor.ConvOptions{StrideH: s, StrideW: s})
	}
	s := x.Shape()
	extra := b.Conv2.W.Value.Dim(0) - s[1]
	if extra == 0 {
		return x
	}
	zeros := func(c int) *autograd.Var[T] {
		return autograd.Const(tensor.ZerosOn(x.Value.Device(), s[0], c, s[2], s[3]))
	}
	lo := extra / 2
	parts := []*autograd.Var[T]{x, zeros(extra - lo)}
	if lo > 0 {
		parts = append([]*autograd.Var[T]{zeros(lo)}, parts...)
	}
	return autograd.Concat(1, parts...)
}

// heConv creates in vb a k×k convolution without bias, padded to keep the size at stride
// 1, with weights N(0, 2/(out·k·k)): He et al. (2015) initialisation over
// the fan-out, as torchvision's ResNet and DenseNet and the original DenseNet
// code initialise convolutions followed by batch normalisation.
func heConv[T tensor.Float](vb Vars[T], rng *rand.Rand, in, out, k, stride int) *Conv2d[T] {
	std := T(math.Sqrt(2 / float64(out*k*k)))
	return &Conv2d[T]{
		Vars: vb,
		W:    vb.Param("weight", tensor.RandNormal(rng, 0, std, out, in, k, k)),
		Opt:  tensor.ConvOptions{StrideH: stride, StrideW: stride, PadH: k / 2, PadW: k / 2},
	}
}

// ResNet20 creates in vb the feature extractor of the CIFAR ResNet-20 of
// He et al. (2016) and returns it with its width 64: conv3×3(3→16)–BN–
// ReLU, three stages of three BasicBlocks with 16, 32 and 64 channels
// (stride 2 and an option-A shortcut at the first block of the second and
// third stages) and global average pooling; the network's last layer,
// fc 64→classes, is the head a caller puts on it. The layers are named
// backbone.0 to backbone.11 by their index, as in bench/peer/train.py's
// PyTorch ResNet20 (whose head is main). Convolutions use heConv's initialisation. With a linear head
// of 10 classes it has the paper's 0.27M parameters (269,722). Input 3×28×28 gives
// 28→14→7 feature maps, 3×32×32 the paper's 32→16→8.
func ResNet20[T tensor.Float](vb Vars[T], rng *rand.Rand) (Sequential[T], int) {
	vb = vb.Sub("backbone")
	var backbone Sequential[T]
	backbone = append(backbone, heConv(backbone.Next(vb), rng, 3, 16, 3, 1))
	backbone = append(backbone, NewBatchNorm2d(backbone.Next(vb), 16), ReLU[T]())
	in := 16
	for stage, out := range []int{16, 32, 64} {
		for i := range 3 {
			stride := 1
			if stage > 0 && i == 0 {
				stride = 2
			}
			backbone = append(backbone, NewBasicBlock(backbone.Next(vb), rng, in, out, stride))
			in = out
		}
	}
	backbone = append(backbone, GlobalAvgPool[T]())
	return backbone, in
}
