package tensor

import "slices"

// ConvOptions are the stride, zero padding and dilation of a convolution or
// pooling window; zero values mean stride 1, padding 0, dilation 1.
type ConvOptions struct {
	StrideH, StrideW int
	PadH, PadW       int
	DilH, DilW       int
}

func orOne(v int) int {
	if v == 0 {
		return 1
	}
	return v
}

// NewConv2DParams checks x [N,C,H,W] against w [O,C,KH,KW] and returns the
// convolution's parameters, or a *ShapeError.
func NewConv2DParams(xShape, wShape []int, o ConvOptions) (Conv2DParams, error) {
	return conv2DParams("Conv2D", xShape, wShape, o)
}

// conv2DParams is NewConv2DParams with errors of tensor.op.
func conv2DParams(op string, xShape, wShape []int, o ConvOptions) (Conv2DParams, error) {
	if len(xShape) != 4 || len(wShape) != 4 || xShape[1] != wShape[1] {
		return Conv2DParams{}, shapeError(op, [][]int{xShape, wShape}, "input %v (want N,C,H,W) and weight %v (want O,C,KH,KW) do not match", xShape, wShape)
	}
	p := Conv2DParams{
		N: xShape[0], C: xShape[1], H: xShape[2], W: xShape[3],
		O: wShape[0], KH: wShape[2], KW: wShape[3],
		StrideH: orOne(o.StrideH), StrideW: orOne(o.StrideW),
		PadH: o.PadH, PadW: o.PadW,
		DilH: orOne(o.DilH), DilW: orOne(o.DilW),
	}
	if err := p.Validate(); err != nil {
		return p, shapeError(op, [][]int{xShape, wShape}, "%v", err)
	}
	return p, nil
}

func must[P any](p P, err error) P {
	if err != nil {
		panic(err)
	}
	return p
}

// Conv2D is the cross-correlation of x [N,C,H,W] with w [O,C,KH,KW], giving
// [N,O,OH,OW].
func Conv2D[T Float](x, w *Tensor[T], o ConvOptions) *Tensor[T] {
	dev := sameDevice("Conv2D", x, w)
	p := must(NewConv2DParams(x.shape, w.shape, o))
	y := outputOn(dev, p.N, p.O, p.OutH(), p.OutW())
	if p.N > 0 {
		dev.Conv2D(y, Contiguous(x), Contiguous(w), p)
	}
	return y
}

// The fused convolutions, their parameters as attribute.
// Conv2DBiasKernel reads x, w and the bias b [O] and writes
// Conv2D(x, w) + b on each output channel. Conv2DAffineKernel reads x, w,
// scale, shift and, as a fifth input, r or none, and writes
// ChannelAffine(Conv2D(x, w), scale, shift, r, relu).
var (
	Conv2DBiasKernel   = NewKernel[Conv2DParams]("conv2d_bias")
	Conv2DAffineKernel = NewKernel[Conv2DAffineParams]("conv2d_affine")
)

// Conv2DAffineParams is Conv2DAffineKernel's attribute: the convolution's
// parameters and whether the ReLU follows.
type Conv2DAffineParams struct {
	Conv Conv2DParams
	Relu bool
}

func init() {
	registerCPU(Conv2DBiasKernel, conv2dBiasCPU[float32], conv2dBiasCPU[float64])
	registerCPU(Conv2DAffineKernel, conv2dAffineCPU[float32], conv2dAffineCPU[float64])
}

// Conv2DBias is Conv2D(x, w) plus the bias b [O] on each output channel:
// on the CPU added in the convolution's pass (to the same rounding); on
// devices without a Conv2DBiasKernel body a broadcast Add
// (conv2dBiasComposed, also the CPU body's tested reference).
func Conv2DBias[T Float](x, w, b *Tensor[T], o ConvOptions) *Tensor[T] {
	dev := sameDevice("Conv2DBias", x, w, b)
	p := must(conv2DParams("Conv2DBias", x.shape, w.shape, o))
	if b.Len() != p.O || len(b.shape) != 1 {
		panic(shapeError("Conv2DBias", [][]int{x.shape, w.shape, b.shape}, "bias %v for %d output channels", b.shape, p.O))
	}
	body, ok := Lookup(Conv2DBiasKernel, dev)
	if !ok || p.N == 0 {
		return conv2dBiasComposed(x, w, b, o)
	}
	y := outputOn(dev, p.N, p.O, p.OutH(), p.OutW())
	body([]*Tensor[T]{y}, []*Tensor[T]{Contiguous(x), Contiguous(w), Contiguous(b)}, p)
	return y
}

// conv2dBiasComposed is Conv2DBias of tensor ops: Conv2D, then Add with b
// broadcast along the channel axis.
func conv2dBiasComposed[T Float](x, w, b *Tensor[T], o ConvOptions) *Tensor[T] {
	return Add(Conv2D(x, w, o), Reshape(b, 1, b.Len(), 1, 1))
}

// conv2dBiasCPU is Conv2DBiasKernel's CPU body: the bias added to each
// output plane in the convolution's pass.
func conv2dBiasCPU[T Float](out, in []*Tensor[T], p Conv2DParams) {
	conv2dForward(HostData(out[0]), HostData(in[0]), HostData(in[1]), biasEpilogue(HostData(in[2])), p)
}

// Conv2DAffine is ChannelAffine(Conv2D(x, w, o), scale, shift, r, relu):
// a convolution followed by batch normalisation in evaluation mode, with
// a residual block's sum and ReLU. On the CPU each output plane takes the
// affine map while it is in cache, to the same bits as the two ops; on
// devices without a Conv2DAffineKernel body the two ops run
// (conv2dAffineComposed, also the CPU body's tested reference).
func Conv2DAffine[T Float](x, w, scale, shift, r *Tensor[T], o ConvOptions, relu bool) *Tensor[T] {
	ts := []*Tensor[T]{x, w, scale, shift}
	if r != nil {
		ts = append(ts, r)
	}
	dev := sameDevice("Conv2DAffine", ts...)
	p := must(conv2DParams("Conv2DAffine", x.shape, w.shape, o))
	for _, t := range []*Tensor[T]{scale, shift} {
		if !slices.Equal(t.shape, []int{p.O}) {
			panic(shapeError("Conv2DAffine", [][]int{x.shape, w.shape, t.shape}, "per-channel tensor %v for %d output channels", t.shape, p.O))
		}
	}
	yShape := []int{p.N, p.O, p.OutH(), p.OutW()}
	if r != nil && !slices.Equal(r.shape, yShape) {
		panic(shapeError("Conv2DAffine", [][]int{x.shape, w.shape, r.shape}, "residual %v for output %v", r.shape, yShape))
	}
	body, ok := Lookup(Conv2DAffineKernel, dev)
	if !ok || p.N == 0 {
		return conv2dAffineComposed(x, w, scale, shift, r, o, relu)
	}
	in := []*Tensor[T]{Contiguous(x), Contiguous(w), Contiguous(scale), Contiguous(shift)}
	if r != nil {
		in = append(in, Contiguous(r))
	}
	y := outputOn(dev, yShape...)
	body([]*Tensor[T]{y}, in, Conv2DAffineParams{Conv: p, Relu: relu})
	return y
}

// conv2dAffineComposed is Conv2DAffine of tensor ops: Conv2D, then
// ChannelAffine.
func conv2dAffineComposed[T Float](x, w, scale, shift, r *Tensor[T], o ConvOptions, relu bool) *Tensor[T] {
	return ChannelAffine(Conv2D(x, w, o), scale, shift, r, relu)
}

// conv2dAffineCPU is Conv2DAffineKernel's CPU body: ChannelAffine's map
// applied to each output plane in the convolution's pass.
func conv2dAffineCPU[T Float](out, in []*Tensor[T], a Conv2DAffineParams) {
	e := &epilogue[T]{scale: HostData(in[2]), shift: HostData(in[3]), relu: a.Relu}
	if len(in) == 5 {
		e.r = HostData(in[4])
	}
	conv2dForward(HostData(out[0]), HostData(in[0]), HostData(in[1]), e, a.Conv)
}

// Conv2DBiasBackward is the gradient of Σ Conv2DBias(x, w, b)·dy with
// respect to b: dy [N,O,OH,OW] summed over all but axis 1 (as a broadcast
// Add's gradient, to the same rounding).
func Conv2DBiasBackward[T Float](dy *Tensor[T]) *Tensor[T] {
	if len(dy.shape) != 4 {
		panic(shapeError("Conv2DBiasBackward", [][]int{dy.shape}, "gradient %v, want [N,O,OH,OW]", dy.shape))
	}
	return Reshape(SumTo(dy, 1, dy.shape[1], 1, 1), dy.shape[1])
}

// Conv2DBackwardInput is the gradient of Σ Conv2D(x, w)·dy with respect to x.
func Conv2DBackwardInput[T Float](dy, w *Tensor[T], p Conv2DParams) *Tensor[T] {
	dev := sameDevice("Conv2DBackwardInput", dy, w)
	dx := outputOn(dev, p.N, p.C, p.H, p.W)
	if p.N > 0 {
		dev.Conv2DBackwardInput(dx, Contiguous(dy), Contiguous(w), p)
	}
	return dx
}

// Conv2DBackwardKernel computes both gradients of a convolution, its
// parameters as attribute: it reads x, dy, w and writes dx, dw.
var Conv2DBackwardKernel = NewKernel[Conv2DParams]("conv2d_backward")

func init() {
	registerCPU(Conv2DBackwardKernel, conv2dBackwardCPU[float32], conv2dBackwardCPU[float64])
}

// Conv2DBackward is Conv2DBackwardInput and Conv2DBackwardWeight together.
// On the CPU a "same" convolution at stride 1 builds one column matrix per
// image, of dy, for both (conv2dGradsFlipped); elsewhere, and on devices
// without a Conv2DBackwardKernel body, the two ops run apart (the
// reference).
func Conv2DBackward[T Float](x, dy, w *Tensor[T], p Conv2DParams) (dx, dw *Tensor[T]) {
	dev := sameDevice("Conv2DBackward", x, dy, w)
	body, ok := Lookup(Conv2DBackwardKernel, dev)
	if !ok || p.N == 0 {
		return Conv2DBackwardInput(dy, w, p), Conv2DBackwardWeight(x, dy, p)
	}
	dx, dw = outputOn(dev, p.N, p.C, p.H, p.W), outputOn(dev, p.O, p.C, p.KH, p.KW)
	body([]*Tensor[T]{dx, dw}, []*Tensor[T]{Contiguous(x), Contiguous(dy), Contiguous(w)}, p)
	return dx, dw
}

// Conv2DBackwardWeight is the gradient of Σ Conv2D(x, w)·dy with respect to w.
func Conv2DBackwardWeight[T Float](x, dy *Tensor[T], p Conv2DParams) *Tensor[T] {
	dev := sameDevice("Conv2DBackwardWeight", x, dy)
	dw := outputOn(dev, p.O, p.C, p.KH, p.KW)
	dev.Conv2DBackwardWeight(dw, Contiguous(x), Contiguous(dy), p)
	return dw
}

// NewPool2DParams checks x [N,C,H,W] against a kh×kw window and returns the
// pooling's parameters, or a *ShapeError.
func NewPool2DParams(xShape []int, kh, kw int, o ConvOptions) (Pool2DParams, error) {
	return pool2DParams("Pool2D", xShape, kh, kw, o)
}

// pool2DParams is NewPool2DParams with errors of tensor.op.
func pool2DParams(op string, xShape []int, kh, kw int, o ConvOptions) (Pool2DParams, error) {
	if len(xShape) != 4 {
		return Pool2DParams{}, shapeError(op, [][]int{xShape}, "input %v, want N,C,H,W", xShape)
	}
	if o.DilH > 1 || o.DilW > 1 {
		return Pool2DParams{}, shapeError(op, [][]int{xShape}, "dilation %d,%d not supported", o.DilH, o.DilW)
	}
	p := Pool2DParams{
		N: xShape[0], C: xShape[1], H: xShape[2], W: xShape[3], KH: kh, KW: kw,
		StrideH: orOne(o.StrideH), StrideW: orOne(o.StrideW), PadH: o.PadH, PadW: o.PadW,
	}
	if err := p.Validate(); err != nil {
		return p, shapeError(op, [][]int{xShape}, "%v", err)
	}
	return p, nil
}

func pool[T Float](name string, x *Tensor[T], kh, kw int, o ConvOptions, run func(Device[T], *Tensor[T], *Tensor[T], Pool2DParams)) *Tensor[T] {
	p, err := pool2DParams(name, x.shape, kh, kw, o)
	if err != nil {
		panic(err)
	}
	y := ZerosOn(x.Device(), p.N, p.C, p.OutH(), p.OutW())
	if y.Len() > 0 {
		run(x.Device(), y, Contiguous(x), p)
	}
	return y
}

// MaxPool2D takes the maximum over kh×kw windows of x [N,C,H,W].
func MaxPool2D[T Float](x *Tensor[T], kh, kw int, o ConvOptions) *Tensor[T] {
	return pool("MaxPool2D", x, kh, kw, o, func(d Device[T], y, x *Tensor[T], p Pool2DParams) { d.MaxPool2D(y, x, p) })
}

// AvgPool2D averages kh×kw windows of x [N,C,H,W] (padding counts as zeros).
func AvgPool2D[T Float](x *Tensor[T], kh, kw int, o ConvOptions) *Tensor[T] {
	return pool("AvgPool2D", x, kh, kw, o, func(d Device[T], y, x *Tensor[T], p Pool2DParams) { d.AvgPool2D(y, x, p) })
}

// MaxPool2DBackward routes dy to the maximum of each window of x.
func MaxPool2DBackward[T Float](x, dy *Tensor[T], p Pool2DParams) *Tensor[T] {
	dev := sameDevice("MaxPool2DBackward", x, dy)
	dx := ZerosOn(dev, x.shape...)
	if dy.Len() > 0 {
		dev.MaxPool2DBackward(dx, Contiguous(x), Contiguous(dy), p)
	}
	return dx
}

// AvgPool2DBackward spreads dy evenly over each window.
func AvgPool2DBackward[T Float](dy *Tensor[T], p Pool2DParams) *Tensor[T] {
	dx := ZerosOn(dy.Device(), p.N, p.C, p.H, p.W)
	if dy.Len() > 0 {
		dy.Device().AvgPool2DBackward(dx, Contiguous(dy), p)
	}
	return dx
}
