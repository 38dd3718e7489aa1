package tensor

import "runtime"

// CPU convolution: im2col + GEMM per image, images split over cores, column
// buffers reused across calls (getScratch), the weights packed for the GEMM
// once per call; stride-1 convolutions with enough channels read the
// padded image in place instead (conv_gather.go).

// colShape is the im2col matrix of one image: rows C·KH·KW, columns OH·OW.
func colShape(p Conv2DParams) (rows, cols int) {
	return p.C * p.KH * p.KW, p.OutH() * p.OutW()
}

// pointwise reports a 1×1, stride-1, unpadded kernel, whose column matrix is
// the image itself.
func pointwise(p Conv2DParams) bool {
	return p.KH == 1 && p.KW == 1 && p.StrideH == 1 && p.StrideW == 1 && p.PadH == 0 && p.PadW == 0
}

// span is the range [lo, hi) of output positions o in [0, n) whose input
// position o·stride - pad + off lies in [0, size).
func span(n, stride, pad, off, size int) (lo, hi int) {
	if stride == 1 { // the usual case, without divisions
		lo, hi = max(pad-off, 0), min(n, size+pad-off)
		return lo, max(lo, hi)
	}
	if a := pad - off; a > 0 {
		lo = (a + stride - 1) / stride
	}
	if b := size - 1 + pad - off; b >= 0 {
		hi = min(n, b/stride+1)
	}
	return lo, max(lo, hi)
}

// colMove moves data between image x [C,H,W] and its column matrix col
// [C·KH·KW, OH·OW]: im2col (add = false) sets col to the receptive fields of
// x, zero for padding; col2im (add = true) adds col back into x, its adjoint.
// Each kernel offset (c, kh, kw) moves a block of rows [ylo, yhi) ×
// columns [xlo, xhi) of its col row, the rest being padding.
func colMove[T Float](col, x []T, p Conv2DParams, add bool) {
	oh, ow, s := p.OutH(), p.OutW(), p.StrideW
	// A stride-1 "same" width makes the block one run in both col and x:
	// one copy, then the padding columns cleared again.
	bulk := !add && s == 1 && p.StrideH == 1 && ow == p.W
	for c := 0; c < p.C; c++ {
		for kh := 0; kh < p.KH; kh++ {
			ylo, yhi := span(oh, p.StrideH, p.PadH, kh*p.DilH, p.H)
			for kw := 0; kw < p.KW; kw++ {
				xlo, xhi := span(ow, s, p.PadW, kw*p.DilW, p.W)
				row := col[((c*p.KH+kh)*p.KW+kw)*oh*ow:][:oh*ow]
				if ylo == yhi || xlo == xhi { // all padding: nothing to move
					if !add {
						clear(row)
					}
					continue
				}
				if !add {
					clear(row[:ylo*ow])
					clear(row[yhi*ow:])
				}
				// out[x] ↔ in[(x-xlo)·s] for x in [xlo, xhi), in at x[at:]
				at := (c*p.H+ylo*p.StrideH-p.PadH+kh*p.DilH)*p.W + xlo*s - p.PadW + kw*p.DilW
				block := row[ylo*ow+xlo:]
				rows, cols, ldx := yhi-ylo, xhi-xlo, p.StrideH*p.W
				switch {
				case add && s == 1:
					moveRows(x[at:], block, rows, cols, ldx, ow, true)
					continue
				case add:
					for y := range rows {
						for j, v := range block[y*ow : y*ow+cols] {
							x[at+y*ldx+j*s] += v
						}
					}
					continue
				case bulk:
					n := (rows-1)*ow + cols
					copy(block[:n], x[at:at+n])
				case s == 1:
					moveRows(block, x[at:], rows, cols, ow, ldx, false)
				default:
					for y := range rows {
						for j := range cols {
							block[y*ow+j] = x[at+y*ldx+j*s]
						}
					}
				}
				padded := row[ylo*ow : yhi*ow]
				for j := range xlo { // the padding columns, a few
					for i := j; i < len(padded); i += ow {
						padded[i] = 0
					}
				}
				for j := xhi; j < ow; j++ {
					for i := j; i < len(padded); i += ow {
						padded[i] = 0
					}
				}
			}
		}
	}
}

// im2col copies the receptive fields of image x [C,H,W] into col
// [C·KH·KW, OH·OW], with zeros for padding.
func im2col[T Float](col, x []T, p Conv2DParams) { colMove(col, x, p, false) }

// col2im adds the columns of col back into image dx [C,H,W] (which it does
// not zero): the adjoint of im2col.
func col2im[T Float](dx, col []T, p Conv2DParams) { colMove(col, dx, p, true) }

// perImage runs body over [0, n) (images, or slices of the batch) split
// over the cores, with a column buffer per worker (nil for pointwise
// kernels, whose column matrix is the image).
func perImage[T Float](p Conv2DParams, n int, body func(lo, hi int, col []T)) {
	rows, cols := colShape(p)
	parallelFor(n, p.O*rows*cols, func(lo, hi int) {
		if pointwise(p) {
			body(lo, hi, nil)
			return
		}
		col := getScratch[T](rows * cols)
		body(lo, hi, *col)
		putScratch(col)
	})
}

// columns is the column matrix of image xn, built in col unless col is nil
// (pointwise kernels), where it is xn itself.
func columns[T Float](col, xn []T, p Conv2DParams) []T {
	if col == nil {
		return xn
	}
	im2col(col, xn, p)
	return col
}

// epilogue is what the CPU convolution does to each output plane (image
// n, channel o) while the plane is in cache: add the bias b [O] (rounded
// as a separate addition, as a broadcast Add would), or ChannelAffine's
// y·scale[o] + shift[o] (+ r, of y's shape), then the ReLU where relu. A
// nil epilogue leaves the sums as they are.
type epilogue[T Float] struct {
	bias         []T
	scale, shift []T
	r            []T
	relu         bool
}

// biasEpilogue is the epilogue adding b, or nil for a nil b.
func biasEpilogue[T Float](b []T) *epilogue[T] {
	if b == nil {
		return nil
	}
	return &epilogue[T]{bias: b}
}

// affine applies ChannelAffine's part of e to y, the plane of image n and
// channel o of an output of channels channels.
func (e *epilogue[T]) affine(y []T, n, o, channels int) {
	var r []T
	if e.r != nil {
		r = e.r[(n*channels+o)*len(y):][:len(y)]
	}
	affinePlane(y, y, r, e.scale[o], e.shift[o], e.relu)
}

// conv2dForward computes y [N,O,OH,OW] from x [N,C,H,W] and w [O,C,KH,KW]
// (per image y_n = W·col_n), then e (nil: none) on each plane, by the
// path convPathFor picks.
func conv2dForward[T Float](y, x, w []T, e *epilogue[T], p Conv2DParams) {
	forwardBy(convPathFor[T](p, passForward), y, x, w, e, p)
}

// forwardBy is conv2dForward by path.
func forwardBy[T Float](path convPath, y, x, w []T, e *epilogue[T], p Conv2DParams) {
	if m := path.tile(); m > 0 {
		winogradForward(y, x, w, e, p, m, false)
		return
	}
	if g, ok := gatherBy[T](path, p, gatherForwardFor[T]); ok {
		defer g.release()
		g.forward(y, x, w, e)
		return
	}
	im2colForward(y, x, w, e, p)
}

// convAffineInput sets y to conv2dForward of ReLU(x·scale[c] + shift[c])
// (scale and shift per input channel c, no epilogue) where p's forward
// path is the gather path at stride 1, which maps each channel as it
// copies it onto its canvas (inputAffine): the same bits as mapping x
// into a buffer first, without the buffer. Image n is read from
// x[n·xs:] and written to y[n·ys:], so that x and y may be parts of
// wider images (a DenseNet's features). Elsewhere it does nothing and
// reports false.
func convAffineInput[T Float](y, x, w, scale, shift []T, p Conv2DParams, xs, ys int) bool {
	if p.StrideH != 1 || p.StrideW != 1 {
		return false
	}
	g, ok := gatherBy[T](convPathFor[T](p, passForward), p, gatherForwardFor[T])
	if !ok {
		return false
	}
	defer g.release()
	g.in = &inputAffine[T]{scale: scale[:p.C], shift: shift[:p.C]}
	g.xs, g.ys = xs, ys
	g.forward(y, x, w, nil)
	return true
}

// gatherBy is the gather layout of p for path: rule's (by the rule
// given), direct's (wherever T has the kernel), none for the others.
func gatherBy[T Float](path convPath, p Conv2DParams, rule func(Conv2DParams) (*gatherConv[T], bool)) (*gatherConv[T], bool) {
	switch path {
	case pathRule:
		return rule(p)
	case pathDirect:
		if gk, ok := asmGatherKernel[T](p.O); ok {
			return newGatherConv(gk, p), true
		}
	}
	return nil, false
}

// im2colForward is conv2dForward by im2col and GEMM (one GEMM over the
// batch for batchesForward).
func im2colForward[T Float](y, x, w []T, e *epilogue[T], p Conv2DParams) {
	if batchesForward[T](p) {
		batchedForward(y, x, w, e, p)
		return
	}
	rows, cols := colShape(p)
	img, out := p.C*p.H*p.W, p.O*cols
	mk, W, buf := packedWeights(operand[T]{data: w, ld: rows}, p.O, rows)
	defer putScratch(buf)
	var bias []T // the bias broadcast to [O, cols]
	if e != nil && e.bias != nil {
		bb := getScratch[T](out)
		defer putScratch(bb)
		bias = *bb
		for o, v := range e.bias {
			fill(bias[o*cols:(o+1)*cols], v)
		}
	}
	perImage(p, p.N, func(lo, hi int, col []T) {
		for n := lo; n < hi; n++ {
			c, yn := columns(col, x[n*img:(n+1)*img], p), y[n*out:(n+1)*out]
			gemmOperands(mk, 1, p.O, cols, rows, 1, W, operand[T]{data: c, ld: cols}, 0, yn, cols)
			switch {
			case bias != nil:
				moveRows(yn, bias, 1, out, out, out, true)
			case e != nil:
				for o := range p.O {
					e.affine(yn[o*cols:(o+1)*cols], n, o, p.O)
				}
			}
		}
	})
}

// fill sets every element of s to v, by doubling copies.
func fill[T Float](s []T, v T) {
	if len(s) == 0 {
		return
	}
	s[0] = v
	for k := 1; k < len(s); k *= 2 {
		copy(s[k:], s[:k])
	}
}

// packedWeights is w, op(w) m×k, packed for gemmOperands once for all
// images, in a scratch buffer to give back.
func packedWeights[T Float](w operand[T], m, k int) (microKernel[T], operand[T], *[]T) {
	mk := kernelFor[T]()
	buf := getScratch[T](roundUp(m, mk.mr) * k)
	packWhole(mk, w, m, k, 1, *buf)
	w.packed = *buf
	return mk, w, buf
}

// conv2dBackwardInput computes dx [N,C,H,W] = ∂Σ(y·dy)/∂x: the
// convolution of dy with the flipped kernel (flippedConv) for a "same"
// convolution, or where that convolution takes the gather path (LeNet's
// unpadded 5×5: 2.25 times the multiply-adds of col2im's GEMM, but none of
// its scattered additions), else per image the columns Wᵀ·dy_n folded back
// by col2im. A path from convPathFor other than the rule computes the
// flipped convolution that way (im2col keeping col2im where p is not
// "same").
func conv2dBackwardInput[T Float](dx, dy, w []T, p Conv2DParams) {
	path := convPathFor[T](p, passInput)
	if q, ok := flippedConv(p); ok && (same(p) || path == pathRule && takesGather[T](q) || path != pathRule && path != pathIm2col) {
		if m := path.tile(); m > 0 { // Winograd reads w flipped as it transforms it
			winogradForward(dx, dy, w, nil, q, m, true)
			return
		}
		wf := getScratch[T](len(w))
		defer putScratch(wf)
		flipKernel(*wf, w, p)
		forwardBy(path, dx, dy, *wf, nil, q)
		return
	}
	if batchesColumns[T](p) {
		pointwiseInputGrad(dx, dy, w, p)
		return
	}
	rows, cols := colShape(p)
	img, out := p.C*p.H*p.W, p.O*cols
	mk, Wt, buf := packedWeights(operand[T]{data: w, ld: rows, trans: true}, rows, p.O)
	defer putScratch(buf)
	perImage(p, p.N, func(lo, hi int, col []T) {
		for n := lo; n < hi; n++ {
			dxn := dx[n*img : (n+1)*img]
			dst := col
			if col == nil {
				dst = dxn
			}
			gemmOperands(mk, 1, rows, cols, p.O, 1, Wt, operand[T]{data: dy[n*out : (n+1)*out], ld: cols}, 0, dst, cols)
			if col != nil {
				clear(dxn)
				col2im(dxn, col, p)
			}
		}
	})
}

func conv2dBackwardCPU[T Float](out, in []*Tensor[T], p Conv2DParams) {
	conv2dGrads(HostData(out[0]), HostData(out[1]), HostData(in[0]), HostData(in[1]), HostData(in[2]), p)
}

// conv2dGrads computes dx and dw, from one layout per image for a "same"
// convolution whose two gradients take the same path, not Winograd
// (conv2dGradsFlipped), else apart.
func conv2dGrads[T Float](dx, dw, x, dy, w []T, p Conv2DParams) {
	path := convPathFor[T](p, passInput)
	if q, ok := flippedConv(p); ok && same(p) && path == convPathFor[T](p, passWeight) && path.tile() == 0 {
		conv2dGradsFlipped(dx, dw, x, dy, w, p, q, path)
		return
	}
	conv2dBackwardInput(dx, dy, w, p)
	conv2dBackwardWeight(dw, x, dy, p)
}

// conv2dGradsFlipped computes dx and dw for a convolution p whose input
// gradient is the convolution q of dy with the flipped kernel W̃
// (flippedConv): on the gather path where path takes it
// (gatherConv.grads), else by im2col.
func conv2dGradsFlipped[T Float](dx, dw, x, dy, w []T, p, q Conv2DParams, path convPath) {
	wf := getScratch[T](len(w))
	defer putScratch(wf)
	flipKernel(*wf, w, p)
	if g, ok := gatherBy[T](path, q, gatherFor[T]); ok {
		defer g.release()
		g.grads(dx, dw, x, dy, *wf, p)
		return
	}
	im2colGradsFlipped(dx, dw, x, dy, *wf, p, q)
}

// im2colGradsFlipped is conv2dGradsFlipped from one column matrix per
// image, col_n of dy, wf being W̃: dx_n = W̃·col_n, and W̃'s gradient
// Σ_n x_n·col_nᵀ [C, O·KH·KW], which is dw flipped back. As
// conv2dBackwardWeight, the batch is cut into one slice per core, each
// summed into its own buffer, added in slice order.
func im2colGradsFlipped[T Float](dx, dw, x, dy, wf []T, p, q Conv2DParams) {
	rows, cols := colShape(q)
	img, out := p.C*p.H*p.W, p.O*cols
	mk, Wf, buf := packedWeights(operand[T]{data: wf, ld: rows}, q.O, rows)
	defer putScratch(buf)
	parts := max(1, min(p.N, runtime.GOMAXPROCS(0)))
	partial := make([]*[]T, parts)
	perImage(q, parts, func(lo, hi int, col []T) {
		for part := lo; part < hi; part++ {
			acc := getScratch[T](q.O * rows)
			clear(*acc)
			for n := part * p.N / parts; n < (part+1)*p.N/parts; n++ {
				c, xn := columns(col, dy[n*out:(n+1)*out], q), x[n*img:(n+1)*img]
				gemmOperands(mk, 1, q.O, cols, rows, 1, Wf, operand[T]{data: c, ld: cols}, 0, dx[n*img:(n+1)*img], cols)
				gemmNT(q.O, rows, cols, xn, cols, c, cols, *acc, rows)
			}
			partial[part] = acc
		}
	})
	clear(dw)
	kk := p.KH * p.KW
	for _, acc := range partial {
		for c := range p.C {
			for o := range p.O {
				src, dst := (*acc)[c*rows+o*kk:][:kk], dw[(o*p.C+c)*kk:][:kk]
				for i, v := range src {
					dst[kk-1-i] += v
				}
			}
		}
		putScratch(acc)
	}
}

// conv2dBackwardWeight computes dw [O,C,KH,KW] = Σ_n dy_n·col_nᵀ: by the
// path convPathFor picks, under the rule on the gather path where it
// applies (gatherConv.weights), else by im2col. The batch is cut into one
// slice per core, each summed into its own buffer; the buffers are added
// in slice order, so the result does not depend on scheduling.
func conv2dBackwardWeight[T Float](dw, x, dy []T, p Conv2DParams) {
	path := convPathFor[T](p, passWeight)
	if m := path.tile(); m > 0 {
		winogradWeights(dw, x, dy, p, m)
		return
	}
	if g, ok := gatherBy[T](path, p, gatherFor[T]); ok {
		defer g.release()
		g.weights(dw, x, dy)
		return
	}
	im2colBackwardWeight(dw, x, dy, p)
}

// im2colBackwardWeight is conv2dBackwardWeight by im2col.
func im2colBackwardWeight[T Float](dw, x, dy []T, p Conv2DParams) {
	rows, cols := colShape(p)
	img, out := p.C*p.H*p.W, p.O*cols
	parts := max(1, min(p.N, runtime.GOMAXPROCS(0)))
	partial := make([]*[]T, parts)
	perImage(p, parts, func(lo, hi int, col []T) {
		for part := lo; part < hi; part++ {
			acc := getScratch[T](len(dw))
			clear(*acc)
			for n := part * p.N / parts; n < (part+1)*p.N/parts; n++ {
				c := columns(col, x[n*img:(n+1)*img], p)
				gemmNT(p.O, rows, cols, dy[n*out:(n+1)*out], cols, c, cols, *acc, rows)
			}
			partial[part] = acc
		}
	})
	sumParts(dw, partial)
}

// sumParts sets dst to the sum of the parts, added in order to zero (so
// that −0 sums as a cleared dst would): the first part written, the
// others added, and gives the parts back to the scratch pool.
func sumParts[T Float](dst []T, parts []*[]T) {
	first := (*parts[0])[:len(dst)]
	for i, v := range first {
		dst[i] = 0 + v
	}
	for _, p := range parts[1:] {
		for i, v := range (*p)[:len(dst)] {
			dst[i] += v
		}
	}
	for _, p := range parts {
		putScratch(p)
	}
}

// flippedConv is the convolution whose forward pass is p's input gradient
// at stride 1: dx is dy [N,O,OH,OW] padded by dil·(k−1) − pad, which must
// not be negative, cross-correlated with the kernel turned by 180° and its
// channels swapped (flipKernel). Its products number C·O·KH·KW·H·W, as
// many as col2im's GEMM only for "same" convolutions (same); a 1×1 kernel
// keeps the direct path, whose columns are dx itself.
func flippedConv(p Conv2DParams) (Conv2DParams, bool) {
	ph, pw := p.DilH*(p.KH-1)-p.PadH, p.DilW*(p.KW-1)-p.PadW
	if p.StrideH != 1 || p.StrideW != 1 || ph < 0 || pw < 0 || pointwise(p) {
		return p, false
	}
	return Conv2DParams{N: p.N, C: p.O, H: p.OutH(), W: p.OutW(), O: p.C, KH: p.KH, KW: p.KW,
		StrideH: 1, StrideW: 1, PadH: ph, PadW: pw, DilH: p.DilH, DilW: p.DilW}, true
}

// same reports an output the size of the input.
func same(p Conv2DParams) bool { return p.OutH() == p.H && p.OutW() == p.W }

// flipKernel sets wf [C,O,KH,KW] to w [O,C,KH,KW] with each kernel turned
// by 180°: wf[c,o,i,j] = w[o,c,KH−1−i,KW−1−j].
func flipKernel[T Float](wf, w []T, p Conv2DParams) {
	kk := p.KH * p.KW
	for o := range p.O {
		for c := range p.C {
			src, dst := w[(o*p.C+c)*kk:][:kk], wf[(c*p.O+o)*kk:][:kk]
			for i, v := range src {
				dst[kk-1-i] = v
			}
		}
	}
}
