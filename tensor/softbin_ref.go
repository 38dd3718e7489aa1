package tensor

// The composed versions of the kernels (tensor ops): the bodies for
// devices without one, and the tested reference of the CPU loops.

func anchorsOn[T Float](dev Device[T], sb SoftBins) *Tensor[T] {
	a := newAnchorSet[T](sb).a
	return FromSliceOn(dev, a, 1, 1, len(a)/sb.Dim, sb.Dim)
}

// distances is x − a_j [N, G, B, E].
func distances[T Float](x *Tensor[T], sb SoftBins) *Tensor[T] {
	sh := x.Shape()
	return Sub(Reshape(x, sh[0], sh[1], 1, sh[2]), anchorsOn(x.Device(), sb))
}

// SoftAssignComposed is SoftAssign as tensor ops, in the order of operations
// that its doc states: the body on devices without one, and the one
// reference of the op, against which the CPU body and a backend's device
// body (kernels/cuda's soft_assign kernel, in both precisions) are tested.
// The CPU body takes shortcuts of its own (lattice anchors,
// ‖x‖² − 2x·a + ‖a‖²) that round differently in float32.
func SoftAssignComposed[T Float](x *Tensor[T], sb SoftBins) *Tensor[T] {
	diff := distances(x, sb)
	return Softmax(Scale(Sum(Mul(diff, diff), 3, false), T(-1/sb.Tau)), 2)
}

func softAssignBackwardComposed[T Float](dw, w, x *Tensor[T], sb SoftBins) *Tensor[T] {
	dz := Mul(w, Sub(dw, Sum(Mul(w, dw), 2, true)))
	return Scale(Sum(Mul(Unsqueeze(dz, 3), distances(x, sb)), 2, false), T(-2/sb.Tau))
}

func binStatsComposed[T Float](w, p *Tensor[T]) *Tensor[T] {
	n := Sum(w, 0, false)
	m := Sum(Mul(Unsqueeze(w, 3), Unsqueeze(p, 2)), 0, false)
	q := Sum(Mul(w, Sum(Mul(p, p), 2, true)), 0, false)
	return Concat(2, Unsqueeze(n, 2), m, Unsqueeze(q, 2))
}

func binStatsBackwardComposed[T Float](ds, w, p *Tensor[T]) (dw, dp *Tensor[T]) {
	g, b, d := ds.Shape()[0], ds.Shape()[1], p.Shape()[2]
	dn, dm, dq := Reshape(Narrow(ds, 2, 0, 1), g, b), Narrow(ds, 2, 1, d), Reshape(Narrow(ds, 2, d+1, 1), g, b)
	pp := Sum(Mul(p, p), 2, true) // [N, G, 1]
	dw = Add(Add(dn, Sum(Mul(Unsqueeze(p, 2), dm), 3, false)), Mul(pp, dq))
	dp = Add(Sum(Mul(Unsqueeze(w, 3), dm), 2, false), Mul(Scale(p, 2), Sum(Mul(w, dq), 2, true)))
	return dw, dp
}
