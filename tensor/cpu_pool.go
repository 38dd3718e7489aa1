package tensor

// CPU pooling: direct loops over each window, the N·C planes split over
// cores; the common 2×2, stride-2 max pooling has its own loops, 8 windows
// at a time in assembly for float32 (pool_amd64.s).

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

// argmax2x2 sets at[ox] to the position, 0…3 in row-major order, of the
// first maximum of window ox of a halving pooling whose two input rows are
// r0 and r1, chosen as by windowArgmax: the first maximum of each row, then
// the lower row's only if it is greater. The choices are flag arithmetic,
// free of branches the data would make unpredictable; a window with a NaN
// (or infinities of both signs, whose sum is also NaN) takes the general rule.
func argmax2x2[T Float](at []uint8, r0, r1 []T) {
	r0, r1 = r0[:2*len(at)], r1[:2*len(at)]
	for ox := range at {
		a, b := r0[2*ox:2*ox+2:2*ox+2], r1[2*ox:2*ox+2:2*ox+2]
		if s := a[0] + a[1] + b[0] + b[1]; s != s {
			at[ox] = nan2x2(a, b)
			continue
		}
		t, u := gt(a[1], a[0]), gt(b[1], b[0])
		lower := gt(b[u], a[t])
		at[ox] = uint8(t + lower*(2+u-t))
	}
}

// chunk2x2 is the number of windows of a row whose argmax2x2 positions the
// 2×2 pooling loops hold at a time.
const chunk2x2 = 64

// nan2x2 is argmax2x2 of one window by the general rule.
func nan2x2[T Float](a, b []T) uint8 {
	q, best := 0, a[0]
	for i, v := range [3]T{a[1], b[0], b[1]} {
		if better(v, best) {
			q, best = i+1, v
		}
	}
	return uint8(q)
}

// gt is 1 if a > b, else 0.
func gt[T Float](a, b T) int {
	n := 0
	if a > b {
		n = 1
	}
	return n
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
		if halving(p) {
			var buf [chunk2x2]uint8
			for oy := 0; oy < oh; oy++ {
				r0, r1 := plane[2*oy*p.W:], plane[(2*oy+1)*p.W:]
				for x0 := max2x2Asm(yp[oy*ow:(oy+1)*ow], r0, r1); x0 < ow; x0 += len(buf) {
					at := buf[:min(len(buf), ow-x0)]
					argmax2x2(at, r0[2*x0:], r1[2*x0:])
					row := yp[oy*ow+x0:][:len(at)]
					for i, q := range at {
						row[i] = plane[(2*oy+int(q>>1))*p.W+2*(x0+i)+int(q&1)]
					}
				}
			}
			return
		}
		y0, y1, x0, x1 := interior3x3(p)
		for oy := 0; oy < oh; oy++ {
			row := yp[oy*ow : (oy+1)*ow]
			inner := oy >= y0 && oy < y1
			for ox := 0; ox < ow; {
				if inner && ox >= x0 && ox < x1 {
					src, n := plane[(oy*p.StrideH-p.PadH)*p.W+ox*p.StrideW-p.PadW:], 0
					if p.StrideW == 2 {
						n = max3x3s2Asm(row[ox:x1], src, p.W)
					}
					if n == 0 {
						n = max3x3Row(row[ox:x1], src, p.W, p.StrideW)
					}
					if n > 0 {
						ox += n
						continue
					}
				}
				row[ox] = plane[windowArgmax(plane, p, oy, ox)]
				ox++
			}
		}
	})
}

// interior3x3 is the range of output rows [y0, y1) and columns [x0, x1)
// whose 3×3 windows lie inside the plane (empty for other windows): the
// ones max3x3Row takes.
func interior3x3(p Pool2DParams) (y0, y1, x0, x1 int) {
	if p.KH != 3 || p.KW != 3 {
		return 0, 0, 0, 0
	}
	// Output o's window starts at o·stride − pad and must end by size.
	in := func(pad, stride, size, out int) (int, int) {
		lo := (pad + stride - 1) / stride
		if size+pad < 3 {
			return lo, lo
		}
		return lo, max(lo, min(out, (size+pad-3)/stride+1))
	}
	y0, y1 = in(p.PadH, p.StrideH, p.H, p.OutH())
	x0, x1 = in(p.PadW, p.StrideW, p.W, p.OutW())
	return y0, y1, x0, x1
}

// max3x3Row sets row[i] to the maximum of the 3×3 window whose top-left
// element is x[i·stride] (rows ld apart), from the first window on, and
// returns the count it set: it stops before a window whose maximum is NaN
// or zero, where the first NaN's payload or the sign of the first zero
// (windowArgmax's choice) may differ from the builtin max's.
func max3x3Row[T Float](row, x []T, ld, stride int) int {
	r0, r1, r2 := x, x[ld:], x[2*ld:]
	for i := range row {
		j := i * stride
		m := max(r0[j], r0[j+1], r0[j+2], r1[j], r1[j+1], r1[j+2], r2[j], r2[j+1], r2[j+2])
		if m != m || m == 0 {
			return i
		}
		row[i] = m
	}
	return len(row)
}

// maxPool2dBackward sets dx to the sum of the dy of the windows whose first
// maximum in x is at each position.
func maxPool2dBackward[T Float](dx, x, dy []T, p Pool2DParams) {
	oh, ow := p.OutH(), p.OutW()
	perPlane(p, func(in, out int) {
		plane, grad := x[in:in+p.H*p.W], dx[in:in+p.H*p.W]
		if halving(p) {
			// The windows tile the plane but for an odd last row and
			// column, which get no gradient; each window sets its four.
			clear(grad[2*oh*p.W:])
			var buf [chunk2x2]uint8
			for oy := 0; oy < oh; oy++ {
				r0, r1 := plane[2*oy*p.W:], plane[(2*oy+1)*p.W:]
				g0, g1 := grad[2*oy*p.W:(2*oy+1)*p.W], grad[(2*oy+1)*p.W:(2*oy+2)*p.W]
				clear(g0[2*ow:])
				clear(g1[2*ow:])
				done := max2x2BackAsm(g0, g1, dy[out+oy*ow:out+(oy+1)*ow], r0, r1)
				for x0 := done; x0 < ow; x0 += len(buf) {
					at := buf[:min(len(buf), ow-x0)]
					argmax2x2(at, r0[2*x0:], r1[2*x0:])
					g := dy[out+oy*ow+x0:][:len(at)]
					for i, q := range at {
						k := 2 * (x0 + i)
						g0[k], g0[k+1], g1[k], g1[k+1] = 0, 0, 0, 0
						grad[(2*oy+int(q>>1))*p.W+k+int(q&1)] = g[i]
					}
				}
			}
			return
		}
		clear(grad)
		y0, y1, x0, x1 := interior3x3(p)
		var at [64]uint8
		for oy := 0; oy < oh; oy++ {
			g := dy[out+oy*ow : out+(oy+1)*ow]
			inner := oy >= y0 && oy < y1 && p.StrideW == 2
			for ox := 0; ox < ow; {
				if inner && ox >= x0 && ox < x1 {
					// Interior windows 16 at a time, in the same order.
					base := (oy*p.StrideH-p.PadH)*p.W + ox*2 - p.PadW
					if n := argmax3x3s2Asm(at[:min(len(at), x1-ox)], plane[base:], p.W); n > 0 {
						for i, k := range at[:n] {
							grad[base+2*i+int(k/3)*p.W+int(k%3)] += g[ox+i]
						}
						ox += n
						continue
					}
				}
				grad[windowArgmax(plane, p, oy, ox)] += g[ox]
				ox++
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
