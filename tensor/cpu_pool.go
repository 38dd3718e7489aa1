package tensor

import "math"

// forWindow calls f with the plane offset of every in-bounds input element
// of the pooling window of output (oy, ox), in row-major window order.
func forWindow(p Pool2DParams, oy, ox int, f func(i int)) {
	for kh := 0; kh < p.KH; kh++ {
		ih := oy*p.StrideH - p.PadH + kh
		if ih < 0 || ih >= p.H {
			continue
		}
		for kw := 0; kw < p.KW; kw++ {
			if iw := ox*p.StrideW - p.PadW + kw; iw >= 0 && iw < p.W {
				f(ih*p.W + iw)
			}
		}
	}
}

// windowArgmax is the plane offset of the first maximum of a window
// (padding never wins; -1 for a window wholly in the padding).
func windowArgmax[T Float](plane []T, p Pool2DParams, oy, ox int) int {
	best, bi := T(math.Inf(-1)), -1
	forWindow(p, oy, ox, func(i int) {
		if bi < 0 || plane[i] > best {
			best, bi = plane[i], i
		}
	})
	return bi
}

// perPlane runs body over the N·C planes of input x and output y on all
// cores, passing the input and output planes' offsets.
func perPlane(p Pool2DParams, body func(in, out int)) {
	hw, ohw := p.H*p.W, p.OutH()*p.OutW()
	parallelFor(p.N*p.C, p.KH*p.KW*ohw, func(lo, hi int) {
		for pl := lo; pl < hi; pl++ {
			body(pl*hw, pl*ohw)
		}
	})
}

// maxPool2dForward takes the maximum of each window.
func maxPool2dForward[T Float](y, x []T, p Pool2DParams) {
	oh, ow := p.OutH(), p.OutW()
	perPlane(p, func(in, out int) {
		plane := x[in : in+p.H*p.W]
		for oy := 0; oy < oh; oy++ {
			for ox := 0; ox < ow; ox++ {
				v := T(math.Inf(-1))
				if i := windowArgmax(plane, p, oy, ox); i >= 0 {
					v = plane[i]
				}
				y[out+oy*ow+ox] = v
			}
		}
	})
}

// maxPool2dBackward sends each dy to its window's first maximum in x.
func maxPool2dBackward[T Float](dx, x, dy []T, p Pool2DParams) {
	oh, ow := p.OutH(), p.OutW()
	perPlane(p, func(in, out int) {
		plane, grad := x[in:in+p.H*p.W], dx[in:in+p.H*p.W]
		clear(grad)
		for oy := 0; oy < oh; oy++ {
			for ox := 0; ox < ow; ox++ {
				if i := windowArgmax(plane, p, oy, ox); i >= 0 {
					grad[i] += dy[out+oy*ow+ox]
				}
			}
		}
	})
}

// avgPool2dForward averages each window over KH·KW (padding counts as zero).
func avgPool2dForward[T Float](y, x []T, p Pool2DParams) {
	oh, ow := p.OutH(), p.OutW()
	scale := 1 / T(p.KH*p.KW)
	perPlane(p, func(in, out int) {
		plane := x[in : in+p.H*p.W]
		for oy := 0; oy < oh; oy++ {
			for ox := 0; ox < ow; ox++ {
				var s T
				forWindow(p, oy, ox, func(i int) { s += plane[i] })
				y[out+oy*ow+ox] = s * scale
			}
		}
	})
}

// avgPool2dBackward spreads each dy over its window.
func avgPool2dBackward[T Float](dx, dy []T, p Pool2DParams) {
	oh, ow := p.OutH(), p.OutW()
	scale := 1 / T(p.KH*p.KW)
	perPlane(p, func(in, out int) {
		grad := dx[in : in+p.H*p.W]
		clear(grad)
		for oy := 0; oy < oh; oy++ {
			for ox := 0; ox < ow; ox++ {
				g := dy[out+oy*ow+ox] * scale
				forWindow(p, oy, ox, func(i int) { grad[i] += g })
			}
		}
	})
}
