package autograd

import "github.com/ecl-go/ecl/tensor"

var (
	opConv2D    = def("conv2d")
	opMaxPool2D = def("maxpool2d")
	opAvgPool2D = def("avgpool2d")
)

// Conv2D is the cross-correlation of x [N,C,H,W] with w [O,C,KH,KW].
func Conv2D[T tensor.Float](x, w *Var[T], o tensor.ConvOptions) *Var[T] {
	p, err := tensor.NewConv2DParams(x.Value.Shape(), w.Value.Shape(), o)
	if err != nil {
		panic("autograd." + err.Error())
	}
	return record(opConv2D, tensor.Conv2D(x.Value, w.Value, o), func(g *tensor.Tensor[T]) []*tensor.Tensor[T] {
		var dx, dw *tensor.Tensor[T]
		if x.requiresGrad {
			dx = tensor.Conv2DBackwardInput(g, w.Value, p)
		}
		if w.requiresGrad {
			dw = tensor.Conv2DBackwardWeight(x.Value, g, p)
		}
		return []*tensor.Tensor[T]{dx, dw}
	}, x, w)
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
