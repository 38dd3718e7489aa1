package tensor

// The dense block of tensor ops: the layer-by-layer reference of
// DenseBlockKernel's and DenseBlockBackwardKernel's bodies, and the block
// on devices without them.

// denseStageRun is one batch normalisation, ReLU and convolution of the
// composed block: its input in, the normalised and rectified z, the
// statistics it normalised with (the running ones where fixed) and the
// parameters.
type denseStageRun[T Float] struct {
	in, z, mean, vari *Tensor[T]
	gamma, beta, w    *Tensor[T]
	pool, fixed       bool
}

// denseBlockComposed runs units on x layer by layer (BatchNormRelu, or
// ChannelAffine with the running statistics folded in, then Conv2D, a
// transition pooling first, and Concat) and returns the output and each
// unit's stages.
func denseBlockComposed[T Float](x *Tensor[T], units []DenseUnit[T], eps T) (*Tensor[T], [][]denseStageRun[T]) {
	runs := make([][]denseStageRun[T], len(units))
	feat := x
	for i, u := range units {
		first := denseNormRelu(feat, u.Gamma, u.Beta, u.Mean, u.Var, eps)
		z := first.z
		runs[i] = []denseStageRun[T]{first}
		if b := u.Bottleneck; b != nil {
			runs[i][0].w = b.W
			neck := denseNormRelu(Conv2D(z, b.W, samePad(b.W)), b.Gamma, b.Beta, b.Mean, b.Var, eps)
			runs[i] = append(runs[i], neck)
			z = neck.z
		}
		last := &runs[i][len(runs[i])-1]
		last.w, last.pool = u.W, u.Pool
		if u.Pool {
			return Conv2D(AvgPool2D(z, 2, 2, denseWindow), u.W, ConvOptions{}), runs
		}
		feat = Concat(1, feat, Conv2D(z, u.W, samePad(u.W)))
	}
	return feat, runs
}

// denseWindow is a transition's pooling: 2×2 windows, stride 2.
var denseWindow = ConvOptions{StrideH: 2, StrideW: 2}

// samePad is the options of a stride-1 convolution by w [O, C, k, k] (k
// odd) that keeps the size.
func samePad[T Float](w *Tensor[T]) ConvOptions {
	return ConvOptions{PadH: w.Dim(2) / 2, PadW: w.Dim(3) / 2}
}

// denseNormRelu is a stage's batch normalisation and ReLU of x: with the
// batch's statistics (BatchNormRelu), or with the running ones mean and
// vari where set (ChannelAffine).
func denseNormRelu[T Float](x, gamma, beta, mean, vari *Tensor[T], eps T) denseStageRun[T] {
	st := denseStageRun[T]{in: x, gamma: gamma, beta: beta, mean: mean, vari: vari, fixed: mean != nil}
	if mean == nil {
		st.z, st.mean, st.vari = BatchNormRelu(x, gamma, beta, nil, eps)
		return st
	}
	scale := Div(gamma, Sqrt(AddScalar(vari, eps)))
	st.z = ChannelAffine(x, scale, Sub(beta, Mul(mean, scale)), nil, true)
	return st
}

// denseBlockBackwardComposed is DenseBlockBackward of tensor ops: units' layers
// run again on x (denseBlockComposed), then their gradients in reverse order,
// the features' gradient split at each unit's channels. It returns dx and
// the parameters' gradients in DenseUnit.Params order.
func denseBlockBackwardComposed[T Float](g, x *Tensor[T], units []DenseUnit[T], eps T) (dx *Tensor[T], grads [][]*Tensor[T]) {
	_, runs := denseBlockComposed(x, units, eps)
	grads = make([][]*Tensor[T], len(units))
	var dfeat *Tensor[T] // the gradient with respect to the features so far
	for i := len(runs) - 1; i >= 0; i-- {
		stages := runs[i]
		last := stages[len(stages)-1]
		var dz, dw *Tensor[T]
		if last.pool {
			zp := AvgPool2D(last.z, 2, 2, denseWindow)
			p := must(NewConv2DParams(zp.Shape(), last.w.Shape(), ConvOptions{}))
			dzp, dwp := Conv2DBackward(zp, g, last.w, p)
			dz, dw = AvgPool2DBackward(dzp, must(NewPool2DParams(last.z.Shape(), 2, 2, denseWindow))), dwp
		} else {
			if dfeat == nil {
				dfeat = g
			}
			c := stages[0].in.Dim(1)
			dy := Narrow(dfeat, 1, c, dfeat.Dim(1)-c)
			dfeat = Narrow(dfeat, 1, 0, c)
			p := must(NewConv2DParams(last.z.Shape(), last.w.Shape(), samePad(last.w)))
			dz, dw = Conv2DBackward(last.z, dy, last.w, p)
		}
		gs := []*Tensor[T]{dw}
		for k := len(stages) - 1; k >= 0; k-- {
			st := stages[k]
			din, dgamma, dbeta := denseNormReluBackward(dz, st, eps)
			if k == 0 {
				gs = append(gs, dbeta, dgamma)
				if dfeat == nil {
					dfeat = din
				} else {
					dfeat = Add(dfeat, din)
				}
				break
			}
			first := stages[k-1]
			p := must(NewConv2DParams(first.z.Shape(), first.w.Shape(), samePad(first.w)))
			dzf, dwb := Conv2DBackward(first.z, din, first.w, p)
			gs = append(gs, dbeta, dgamma, dwb)
			dz = dzf
		}
		for l, r := 0, len(gs)-1; l < r; l, r = l+1, r-1 { // into Params order
			gs[l], gs[r] = gs[r], gs[l]
		}
		grads[i] = gs
	}
	return dfeat, grads
}

// denseNormReluBackward is the gradient of a stage's batch normalisation
// and ReLU for gz at its output: with the batch's statistics
// BatchNormReluBackward's; with running ones, constants, the ReLU's mask
// g, then ∂x = g·γ/√(σ² + ε), ∂γ = Σ g·x̂ and ∂β = Σ g per channel.
func denseNormReluBackward[T Float](gz *Tensor[T], st denseStageRun[T], eps T) (dx, dgamma, dbeta *Tensor[T]) {
	if !st.fixed {
		dx, dgamma, dbeta, _ = BatchNormReluBackward(gz, st.z, st.in, st.gamma, st.mean, st.vari, eps, false)
		return dx, dgamma, dbeta
	}
	n, c, s := bnShape("DenseBlockBackward", st.in, st.gamma)
	g := Reshape(ReluGrad(gz, st.z), n, c, s)
	inv := Div(FullOn[T](st.in.Device(), 1, c), Sqrt(AddScalar(st.vari, eps)))
	xhat := Mul(Sub(Reshape(st.in, n, c, s), perChannel(st.mean)), perChannel(inv))
	dx = Reshape(Mul(g, perChannel(Mul(st.gamma, inv))), st.in.Shape()...)
	return dx, channelSums(Mul(g, xhat)), channelSums(g)
}
