package tensor

import "slices"

// ChannelAffineKernel reads x [N, C, …], scale and shift [C] and, as a
// fourth input, r of x's shape or none; it writes y = x·scale + shift
// (+ r) per channel, then the ReLU where the attribute is true: batch
// normalisation in evaluation mode, its running estimates folded into
// scale and shift, with a ResNet block's residual sum and ReLU.
var ChannelAffineKernel = NewKernel[bool]("channel_affine")

func init() {
	registerCPU(ChannelAffineKernel, channelAffineCPU[float32], channelAffineCPU[float64])
}

// ChannelAffine is y = x·scale + shift per channel of x [N, C, …] (scale
// and shift [C]), plus r (of x's shape; nil for none), then Relu when relu:
// on the CPU one pass, rounded as the composed ops; on devices without a
// ChannelAffineKernel body the composed ops (channelAffineComposed, also
// the CPU body's tested reference).
func ChannelAffine[T Float](x, scale, shift, r *Tensor[T], relu bool) *Tensor[T] {
	bnShape("ChannelAffine", x, scale, shift)
	if r != nil && !slices.Equal(r.Shape(), x.Shape()) {
		panic(shapeError("ChannelAffine", [][]int{x.Shape(), r.Shape()}, "residual %v for input %v", r.Shape(), x.Shape()))
	}
	dev := x.Device()
	body, ok := Lookup(ChannelAffineKernel, dev)
	if !ok || x.Len() == 0 {
		return channelAffineComposed(x, scale, shift, r, relu)
	}
	in := []*Tensor[T]{Contiguous(x), Contiguous(scale), Contiguous(shift)}
	if r != nil {
		in = append(in, Contiguous(r))
	}
	y := outputOn(dev, x.Shape()...)
	body([]*Tensor[T]{y}, in, relu)
	return y
}

// channelAffineComposed is ChannelAffine of tensor ops: Mul, Add, Add,
// Relu with scale and shift broadcast along the channel axis.
func channelAffineComposed[T Float](x, scale, shift, r *Tensor[T], relu bool) *Tensor[T] {
	sh := make([]int, x.Dims())
	for i := range sh {
		sh[i] = 1
	}
	sh[1] = x.Dim(1)
	y := Add(Mul(x, Reshape(scale, sh...)), Reshape(shift, sh...))
	if r != nil {
		y = Add(y, r)
	}
	if relu {
		y = Relu(y)
	}
	return y
}

// channelAffineCPU is ChannelAffineKernel's CPU body: each (image,
// channel) plane in one pass, planes split over cores.
func channelAffineCPU[T Float](out, in []*Tensor[T], relu bool) {
	n, c, s := bnShape("ChannelAffine", in[0], in[1], in[2])
	xs, ys := HostData(in[0]), HostData(out[0])
	scale, shift := HostData(in[1]), HostData(in[2])
	var rs []T
	if len(in) == 4 {
		rs = HostData(in[3])
	}
	parallelFor(n*c, 2*s, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			var r []T
			if rs != nil {
				r = rs[p*s : (p+1)*s]
			}
			affinePlane(ys[p*s:(p+1)*s], xs[p*s:(p+1)*s], r, scale[p%c], shift[p%c], relu)
		}
	})
}

// affinePlane sets y to x·a + b (+ r where r is not nil), then the ReLU
// where relu: one plane of ChannelAffine. y may be x.
func affinePlane[T Float](y, x, r []T, a, b T, relu bool) {
	switch {
	case r != nil && relu:
		affineAddRelu(y, x, r, a, b)
	case relu:
		affineRelu(y, x, a, b)
	case r != nil:
		for j, v := range x {
			y[j] = v*a + b + r[j]
		}
	default:
		affine(y, x, a, b)
	}
}
