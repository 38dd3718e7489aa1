package tensor

// CPU pooling: direct loops over each window, the N·C planes split over
// cores.

// window is the in-bounds part, rows [h0, h1) and columns [w0, w1), of the
// pooling window of output (oy, ox): padding is cut off. It is never empty,
// since Pool2DParams.Validate keeps the padding within half the window.
func window(p Pool2DParams, oy, ox int) (h0, h1, w0, w1 int) {
	h0, w0 = oy*p.StrideH-p.PadH, ox*p.StrideW-p.PadW
	return max(h0, 0), min(h0+p.KH, p.H), max(w0, 0), min(w0+p.KW, p.W)
}

// windowArgmax is the plane offset of the first maximum, in row-major order,
// of the window of output (oy, ox), or of its first NaN, which propagates.
func windowArgmax[T Float](plane []T, p Pool2DParams, oy, ox int) int {
	h0, h1, w0, w1 := window(p, oy, ox)
	bi := h0*p.W + w0
	best := plane[bi]
	for ih := h0; ih < h1; ih++ {
		for i := ih*p.W + w0; i < ih*p.W+w1; i++ {
			if v := plane[i]; v > best || v != v && best == best {
				best, bi = v, i
			}
		}
	}
	return bi
}

// perPlane runs body over the N·C planes on all cores, passing the offsets
// of each input and output plane.
func perPlane(p Pool2DParams, body func(in, out int)) {
	hw, ohw := p.H*p.W, p.OutH()*p.OutW()
	parallelFor(p.N*p.C, p.KH*p.KW*ohw, func(lo, hi int) {
		for pl := lo; pl < hi; pl++ {
			body(pl*hw, pl*ohw)
		}
	})
}

// maxPool2dForward sets y [N,C,OH,OW] to the maximum of each window of
// x [N,C,H,W]; padding never wins.
func maxPool2dForward[T Float](y, x []T, p Pool2DParams) {
	oh, ow := p.OutH(), p.OutW()
	perPlane(p, func(in, out int) {
		plane := x[in : in+p.H*p.W]
		for oy := 0; oy < oh; oy++ {
			for ox := 0; ox < ow; ox++ {
				y[out+oy*ow+ox] = plane[windowArgmax(plane, p, oy, ox)]
			}
		}
	})
}

// maxPool2dBackward sets dx to the sum of the dy of the windows whose first
// maximum in x is at each position.
func maxPool2dBackward[T Float](dx, x, dy []T, p Pool2DParams) {
	oh, ow := p.OutH(), p.OutW()
	perPlane(p, func(in, out int) {
		plane, grad := x[in:in+p.H*p.W], dx[in:in+p.H*p.W]
		clear(grad)
		for oy := 0; oy < oh; oy++ {
			for ox := 0; ox < ow; ox++ {
				grad[windowArgmax(plane, p, oy, ox)] += dy[out+oy*ow+ox]
			}
		}
	})
}

// avgPool2dForward sets y to each window's sum divided by KH·KW: padding
// counts as zeros (PyTorch's count_include_pad).
func avgPool2dForward[T Float](y, x []T, p Pool2DParams) {
	oh, ow := p.OutH(), p.OutW()
	scale := 1 / T(p.KH*p.KW)
	perPlane(p, func(in, out int) {
		plane := x[in : in+p.H*p.W]
		for oy := 0; oy < oh; oy++ {
			for ox := 0; ox < ow; ox++ {
				var s T
				h0, h1, w0, w1 := window(p, oy, ox)
				for ih := h0; ih < h1; ih++ {
					for _, v := range plane[ih*p.W+w0 : ih*p.W+w1] {
						s += v
					}
				}
				y[out+oy*ow+ox] = s * scale
			}
		}
	})
}

// avgPool2dBackward sets dx to the sum of dy/(KH·KW) over the windows that
// cover each position.
func avgPool2dBackward[T Float](dx, dy []T, p Pool2DParams) {
	oh, ow := p.OutH(), p.OutW()
	scale := 1 / T(p.KH*p.KW)
	perPlane(p, func(in, out int) {
		grad := dx[in : in+p.H*p.W]
		clear(grad)
		for oy := 0; oy < oh; oy++ {
			for ox := 0; ox < ow; ox++ {
				g := dy[out+oy*ow+ox] * scale
				h0, h1, w0, w1 := window(p, oy, ox)
				for ih := h0; ih < h1; ih++ {
					row := grad[ih*p.W+w0 : ih*p.W+w1]
					for j := range row {
						row[j] += g
					}
				}
			}
		}
	})
}
