package autograd

import "github.com/ecl-go/ecl/tensor"

// Conv2D is the cross-correlation of x [N,C,H,W] with w [O,C,KH,KW].
func Conv2D[T tensor.Float](x, w *Var[T], o tensor.ConvOptions) *Var[T] {
	y := tensor.Conv2D(x.Value, w.Value, o) // checks the shapes first
	return record(opConv2D, y, gradConv2D[T](convParams(x, w, o)), x, w)
}

// Conv2DBias is Conv2D(x, w) plus the bias b [O] on each output channel,
// in one pass (tensor.Conv2DBias).
func Conv2DBias[T tensor.Float](x, w, b *Var[T], o tensor.ConvOptions) *Var[T] {
	y := tensor.Conv2DBias(x.Value, w.Value, b.Value, o)
	return record(opConv2DBias, y, gradConv2DBias[T](convParams(x, w, o)), x, w, b)
}

// Conv2DAffine is ChannelAffine(Conv2D(x, w), scale, shift, r, relu), a
// convolution and its batch normalisation in evaluation mode (with a
// residual block's sum and ReLU; r nil for none): one pass
// (tensor.Conv2DAffine), unless the gradient of scale is to be computed,
// which needs the convolution's output kept.
func Conv2DAffine[T tensor.Float](x, w, scale, shift, r *Var[T], o tensor.ConvOptions, relu bool) *Var[T] {
	inputs := []*Var[T]{x, w, scale, shift}
	var rv *tensor.Tensor[T]
	if r != nil {
		rv = r.Value
		inputs = append(inputs, r)
	}
	var y, z *tensor.Tensor[T]
	if noGrad.Load() == 0 && scale.requiresGrad {
		z = tensor.Conv2D(x.Value, w.Value, o)
		y = tensor.ChannelAffine(z, scale.Value, shift.Value, rv, relu)
	} else {
		y = tensor.Conv2DAffine(x.Value, w.Value, scale.Value, shift.Value, rv, o, relu)
	}
	return record(opConv2DAffine, y, gradConv2DAffine(convParams(x, w, o), z, relu), inputs...)
}

// convParams is the parameters of the convolution of x with w, which the
// forward op has checked (else it panics with the *tensor.ShapeError).
func convParams[T tensor.Float](x, w *Var[T], o tensor.ConvOptions) tensor.Conv2DParams {
	p, err := tensor.NewConv2DParams(x.Value.Shape(), w.Value.Shape(), o)
	if err != nil {
		panic(err)
	}
	return p
}

// poolParams is the parameters of pooling x, as convParams.
func poolParams(x []int, kh, kw int, o tensor.ConvOptions) tensor.Pool2DParams {
	p, err := tensor.NewPool2DParams(x, kh, kw, o)
	if err != nil {
		panic(err)
	}
	return p
}

// MaxPool2D takes the maximum of kh×kw windows of x [N,C,H,W].
func MaxPool2D[T tensor.Float](x *Var[T], kh, kw int, o tensor.ConvOptions) *Var[T] {
	y := tensor.MaxPool2D(x.Value, kh, kw, o)
	return record(opMaxPool2D, y, gradMaxPool2D[T](poolParams(x.Value.Shape(), kh, kw, o)), x)
}

// AvgPool2D averages kh×kw windows of x [N,C,H,W] (padding counts as zeros).
func AvgPool2D[T tensor.Float](x *Var[T], kh, kw int, o tensor.ConvOptions) *Var[T] {
	y := tensor.AvgPool2D(x.Value, kh, kw, o)
	return record(opAvgPool2D, y, gradAvgPool2D[T](poolParams(x.Value.Shape(), kh, kw, o)), x)
}
