package autograd

import "github.com/ecl-go/ecl/tensor"

var (
	opConv2D     = def("conv2d")
	opConv2DBias = def("conv2dbias")
	opMaxPool2D  = def("maxpool2d")
	opAvgPool2D  = def("avgpool2d")
)

// Conv2D is the cross-correlation of x [N,C,H,W] with w [O,C,KH,KW].
func Conv2D[T tensor.Float](x, w *Var[T], o tensor.ConvOptions) *Var[T] {
	p := convParams(x, w, o)
	return record(opConv2D, tensor.Conv2D(x.Value, w.Value, o), func(g *tensor.Tensor[T]) []*tensor.Tensor[T] {
		return convGrads(g, x, w, p)
	}, x, w)
}

// Conv2DBias is Conv2D(x, w) plus the bias b [O] on each output channel,
// in one pass (tensor.Conv2DBias).
func Conv2DBias[T tensor.Float](x, w, b *Var[T], o tensor.ConvOptions) *Var[T] {
	p := convParams(x, w, o)
	return record(opConv2DBias, tensor.Conv2DBias(x.Value, w.Value, b.Value, o), func(g *tensor.Tensor[T]) []*tensor.Tensor[T] {
		var db *tensor.Tensor[T]
		if b.requiresGrad {
			db = tensor.Conv2DBiasBackward(g)
		}
		return append(convGrads(g, x, w, p), db)
	}, x, w, b)
}

func convParams[T tensor.Float](x, w *Var[T], o tensor.ConvOptions) tensor.Conv2DParams {
	p, err := tensor.NewConv2DParams(x.Value.Shape(), w.Value.Shape(), o)
	if err != nil {
		panic("autograd." + err.Error())
	}
	return p
}

// convGrads is the gradients of x and w, where they require them, for the
// output gradient g.
func convGrads[T tensor.Float](g *tensor.Tensor[T], x, w *Var[T], p tensor.Conv2DParams) []*tensor.Tensor[T] {
	var dx, dw *tensor.Tensor[T]
	if x.requiresGrad && w.requiresGrad {
		dx, dw = tensor.Conv2DBackward(x.Value, g, w.Value, p)
		return []*tensor.Tensor[T]{dx, dw}
	}
	if x.requiresGrad {
		dx = tensor.Conv2DBackwardInput(g, w.Value, p)
	}
	if w.requiresGrad {
		dw = tensor.Conv2DBackwardWeight(x.Value, g, p)
	}
	return []*tensor.Tensor[T]{dx, dw}
}

func poolParams(x []int, kh, kw int, o tensor.ConvOptions) tensor.Pool2DParams {
	p, err := tensor.NewPool2DParams(x, kh, kw, o)
	if err != nil {
		panic("autograd." + err.Error())
	}
	return p
}

// MaxPool2D takes the maximum of kh×kw windows of x [N,C,H,W].
func MaxPool2D[T tensor.Float](x *Var[T], kh, kw int, o tensor.ConvOptions) *Var[T] {
	p := poolParams(x.Value.Shape(), kh, kw, o)
	return record(opMaxPool2D, tensor.MaxPool2D(x.Value, kh, kw, o), func(g *tensor.Tensor[T]) []*tensor.Tensor[T] {
		return []*tensor.Tensor[T]{tensor.MaxPool2DBackward(x.Value, g, p)}
	}, x)
}

// AvgPool2D averages kh×kw windows of x [N,C,H,W] (padding counts as zeros).
func AvgPool2D[T tensor.Float](x *Var[T], kh, kw int, o tensor.ConvOptions) *Var[T] {
	p := poolParams(x.Value.Shape(), kh, kw, o)
	return record(opAvgPool2D, tensor.AvgPool2D(x.Value, kh, kw, o), func(g *tensor.Tensor[T]) []*tensor.Tensor[T] {
		return []*tensor.Tensor[T]{tensor.AvgPool2DBackward(g, p)}
	}, x)
}
