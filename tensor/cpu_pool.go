package tensor

// CPU pooling: direct loops over each window, the N·C planes split over
// cores; the common 2×2, stride-2 max pooling has its own loop.

// window is the in-bounds part, rows [h0, h1) and columns [w0, w1), of the
// pooling window of output (oy, ox): padding is cut off. It is never empty,
// since Pool2DParams.Validate keeps the padding within half the window.
func window(p Pool2DParams, oy, ox int) (h0, h1, w0, w1 int) {
	h0, w0 = oy*p.StrideH-p.PadH, ox*p.StrideW-p.PadW
	return max(h0, 0), min(h0+p.KH, p.H), max(w0, 0), min(w0+p.KW, p.W)
}

// better reports whether v, met after best in a window, is its new
// maximum: it is greater, or the first NaN, which propagates.
func better[T Float](v, best T) bool { return v > best || v != v && best == best }

// windowArgmax is the plane offset of the first maximum, in row-major order,
// of the window of output (oy, ox), or of its first NaN.
func windowArgmax[T Float](plane []T, p Pool2DParams, oy, ox int) int {
	h0, h1, w0, w1 := window(p, oy, ox)
	bi := h0*p.W + w0
	best := plane[bi]
	for ih := h0; ih < h1; ih++ {
		for i := ih*p.W + w0; i < ih*p.W+w1; i++ {
			if v := plane[i]; better(v, best) {
				best, bi = v, i
			}
		}
	}
	return bi
}

// halving reports the unpadded 2×2, stride-2 window, whose windows tile the
// plane (but for an odd last row or column).
func halving(p Pool2DParams) bool {
	return p.KH == 2 && p.KW == 2 && p.StrideH == 2 && p.StrideW == 2 && p.PadH == 0 && p.PadW == 0
}

// max2x2 is the maximum of the window of output (oy, ox) of a halving
// pooling of plane, and its plane offset, chosen as by windowArgmax.
func max2x2[T Float](plane []T, w, oy, ox int) (T, int) {
	i := 2*oy*w + 2*ox
	r0, r1 := plane[i:i+2:i+2], plane[i+w:i+w+2:i+w+2]
	at := first4(r0[0], r0[1], r1[0], r1[1])
	at = i + at&1 + at>>1*w
	return plane[at], at
}

// first4 is the position of the first maximum of a, b, c, d, or of their
// first NaN, computed without data-dependent branches but for NaN.
func first4[T Float](a, b, c, d T) int {
	m := max(a, b, c, d) // NaN if any is
	if m != m {
		return firstNaN(a, b, c)
	}
	return ne(a, m) * (1 + ne(b, m)*(1+ne(c, m)))
}

// ne is 1 if a ≠ b, else 0.
func ne[T Float](a, b T) int {
	n := 0
	if a != b {
		n = 1
	}
	return n
}

// firstNaN is the position of the first NaN among a, b, c and a fourth
// value that is one when they are not.
func firstNaN[T Float](a, b, c T) int {
	for i, v := range [3]T{a, b, c} {
		if v != v {
			return i
		}
	}
	return 3
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
		plane, yp := x[in:in+p.H*p.W], y[out:out+oh*ow]
		for oy := 0; oy < oh; oy++ {
			row := yp[oy*ow : (oy+1)*ow]
			if halving(p) {
				for ox := range row {
					row[ox], _ = max2x2(plane, p.W, oy, ox)
				}
				continue
			}
			for ox := range row {
				row[ox] = plane[windowArgmax(plane, p, oy, ox)]
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
			g := dy[out+oy*ow : out+(oy+1)*ow]
			if halving(p) {
				for ox, v := range g {
					_, at := max2x2(plane, p.W, oy, ox)
					grad[at] = v // windows do not overlap
				}
				continue
			}
			for ox, v := range g {
				grad[windowArgmax(plane, p, oy, ox)] += v
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
