package nn

import (
	"math/rand/v2"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

// DenseLayer is the basic (non-bottleneck) layer of a DenseNet (Huang et al.
// 2017): it appends to x [N, C, H, W] the growth channels
// conv3×3(relu(bn(x))), giving [N, C+growth, H, W].
//
// On its own, a layer copies the whole concatenation, so a block of L
// layers would store O(L²) channels for backward. In a Sequential on a
// device with tensor.DenseBlockKernel's body (the CPU), in training or in
// evaluation, a run of consecutive layers and the
// Transition after them run as one autograd.DenseBlock instead: one feature
// buffer that each layer appends to, batch normalisation and ReLU
// recomputed in the backward pass (Pleiss et al. 2017), memory linear in
// depth; the results are the same up to rounding.
//
// Its layers are named bn and conv.
type DenseLayer[T tensor.Float] struct {
	Vars[T]
	BN   *BatchNorm2d[T]
	Conv *Conv2d[T]
}

// NewDenseLayer creates in vb a layer on in channels adding growth channels.
func NewDenseLayer[T tensor.Float](vb Vars[T], rng *rand.Rand, in, growth int) *DenseLayer[T] {
	return &DenseLayer[T]{Vars: vb, BN: NewBatchNorm2d(vb.Sub("bn"), in), Conv: heConv(vb.Sub("conv"), rng, in, growth, 3, 1)}
}

// Forward concatenates x and the new channels along the channel axis.
func (l *DenseLayer[T]) Forward(x *autograd.Var[T]) *autograd.Var[T] {
	return autograd.Concat(1, x, l.Conv.Forward(autograd.Relu(l.BN.Forward(x))))
}

// forwardRun runs l and the layers that follow it in rest as one dense
// block where it can (see DenseLayer).
func (l *DenseLayer[T]) forwardRun(x *autograd.Var[T], rest []Module[T]) (*autograd.Var[T], int) {
	return forwardBlock(l, x, rest)
}

// unit is l as a unit of a dense block, with its batch normalisation.
func (l *DenseLayer[T]) unit() (autograd.DenseUnit[T], []*BatchNorm2d[T]) {
	return autograd.DenseUnit[T]{Gamma: l.BN.Gamma, Beta: l.BN.Beta, W: l.Conv.W}, []*BatchNorm2d[T]{l.BN}
}

// blockLayer is a layer that a fused dense block can run: a dense layer,
// or a transition, which ends the block (its unit pools). unit is the
// layer as a unit of the block, with its batch normalisations in the order
// autograd.DenseBlock reports their statistics.
type blockLayer[T tensor.Float] interface {
	Module[T]
	unit() (autograd.DenseUnit[T], []*BatchNorm2d[T])
}

// forwardBlock runs first and the block layers that follow it in rest, up
// to and including a transition, as one autograd.DenseBlock when x's
// device has tensor.DenseBlockKernel's body and every batch normalisation has the same ε and is in the same
// mode: in training, on the batch's statistics, which it tracks; in
// evaluation, on the running ones. It returns the output and how many
// modules of rest it consumed. Else it is first.Forward(x), consuming
// none.
func forwardBlock[T tensor.Float](first blockLayer[T], x *autograd.Var[T], rest []Module[T]) (*autograd.Var[T], int) {
	u, bns := first.unit()
	units, used := []autograd.DenseUnit[T]{u}, 0
	for _, m := range rest {
		l, ok := m.(blockLayer[T])
		if u.Pool || !ok {
			break
		}
		var ns []*BatchNorm2d[T]
		u, ns = l.unit()
		units, bns = append(units, u), append(bns, ns...)
		used++
	}
	_, fused := tensor.Lookup(tensor.DenseBlockKernel, x.Value.Device())
	if sh := x.Shape(); u.Pool && (sh[2] < 2 || sh[3] < 2) {
		fused = false // a transition that pools a map under 2×2: the layers' rule
	}
	training := *bns[0].training
	for _, b := range bns {
		fused = fused && *b.training == training && b.Eps == bns[0].Eps
	}
	if !fused {
		return first.Forward(x), 0
	}
	if !training {
		k := 0 // the next unit's batch normalisation in bns
		for i := range units {
			units[i].Mean, units[i].Var = bns[k].RunMean.Value, bns[k].RunVar.Value
			k++
			if b := units[i].Bottleneck; b != nil {
				b.Mean, b.Var = bns[k].RunMean.Value, bns[k].RunVar.Value
				k++
			}
		}
		return autograd.DenseBlock(x, units, bns[0].Eps, nil), used
	}
	s := x.Shape()
	count := s[0] * s[2] * s[3]
	return autograd.DenseBlock(x, units, bns[0].Eps, func(i int, m, v *tensor.Tensor[T]) { bns[i].track(m, v, count) }), used
}

// Transition is the DenseNet transition between blocks on c channels:
// BN–ReLU–conv1×1 (c→c, no compression)–average pooling 2×2, its layers
// named bn and conv.
type Transition[T tensor.Float] struct {
	Vars[T]
	BN   *BatchNorm2d[T]
	Conv *Conv2d[T]
}

// NewTransition creates in vb the transition on c channels.
func NewTransition[T tensor.Float](vb Vars[T], rng *rand.Rand, c int) *Transition[T] {
	return &Transition[T]{Vars: vb, BN: NewBatchNorm2d(vb.Sub("bn"), c), Conv: heConv(vb.Sub("conv"), rng, c, c, 1, 1)}
}

// unit is t as the last unit of a dense block, with its batch
// normalisation.
func (t *Transition[T]) unit() (autograd.DenseUnit[T], []*BatchNorm2d[T]) {
	return autograd.DenseUnit[T]{Gamma: t.BN.Gamma, Beta: t.BN.Beta, W: t.Conv.W, Pool: true}, []*BatchNorm2d[T]{t.BN}
}

// Forward is pool(conv(relu(bn(x)))).
func (t *Transition[T]) Forward(x *autograd.Var[T]) *autograd.Var[T] {
	return AvgPool2d[T](2, 2).Forward(t.Conv.Forward(autograd.Relu(t.BN.Forward(x))))
}

// DenseNet40 creates in vb the feature extractor of the DenseNet of depth
// 40 and growth rate 12 of Huang et al. (2017) and returns it with its
// width 448: conv3×3(3→16), three dense blocks of 12 DenseLayers (16→160,
// 160→304, 304→448 channels) with a Transition after each of the first
// two, then BN–ReLU–global average pooling; the network's last layer,
// fc 448→classes, is the head a caller puts on it. The layers are named
// backbone.0 to backbone.39 by their index, as in bench/peer/train.py's
// PyTorch DenseNet40 (whose head is main). Convolutions use heConv's initialisation; the paper's
// dropout (used only without data augmentation) is left out. With a linear
// head of 10 classes it has 1,019,722 parameters, the paper's "1.0M" (ports that
// start with 2·12 = 24 channels, as DenseNet-BC does, have 1,059,298).
// Input 3×28×28 gives 28→14→7 feature maps.
func DenseNet40[T tensor.Float](vb Vars[T], rng *rand.Rand) (Sequential[T], int) {
	const growth, layers = 12, 12
	vb = vb.Sub("backbone")
	c := 16
	var backbone Sequential[T]
	backbone = append(backbone, heConv(backbone.Next(vb), rng, 3, c, 3, 1))
	for block := range 3 {
		if block > 0 {
			backbone = append(backbone, NewTransition(backbone.Next(vb), rng, c))
		}
		for range layers {
			backbone = append(backbone, NewDenseLayer(backbone.Next(vb), rng, c, growth))
			c += growth
		}
	}
	backbone = append(backbone, NewBatchNorm2d(backbone.Next(vb), c), ReLU[T](), GlobalAvgPool[T]())
	return backbone, c
}
