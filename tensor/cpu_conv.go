package tensor

// CPU convolution: im2col + GEMM per image, images split over cores. Each
// worker allocates its column buffer once per call.

// colShape is the im2col matrix of one image: rows C·KH·KW, columns OH·OW.
func colShape(p Conv2DParams) (rows, cols int) {
	return p.C * p.KH * p.KW, p.OutH() * p.OutW()
}

// pointwise reports a 1×1, stride-1, unpadded kernel, whose column matrix is
// the image itself.
func pointwise(p Conv2DParams) bool {
	return p.KH == 1 && p.KW == 1 && p.StrideH == 1 && p.StrideW == 1 && p.PadH == 0 && p.PadW == 0
}

// rows calls f for every row of the column matrix of one image whose input
// row is inside the image (others are all padding): the column-matrix row
// segment's offset for output row y, the input row's offset ih·W in plane c,
// and the kernel column kw.
func rows(p Conv2DParams, f func(colOff, inOff, kw int)) {
	oh, ow := p.OutH(), p.OutW()
	for c := 0; c < p.C; c++ {
		for kh := 0; kh < p.KH; kh++ {
			for kw := 0; kw < p.KW; kw++ {
				row := ((c*p.KH+kh)*p.KW + kw) * oh * ow
				for y := 0; y < oh; y++ {
					if ih := y*p.StrideH - p.PadH + kh*p.DilH; ih >= 0 && ih < p.H {
						f(row+y*ow, (c*p.H+ih)*p.W, kw)
					}
				}
			}
		}
	}
}

// im2col copies the receptive fields of image x [C,H,W] into col
// [C·KH·KW, OH·OW], with zeros for padding.
func im2col[T Float](col, x []T, p Conv2DParams) {
	clear(col)
	ow := p.OutW()
	rows(p, func(colOff, inOff, kw int) {
		out, in := col[colOff:colOff+ow], x[inOff:inOff+p.W]
		for j := range out {
			if iw := j*p.StrideW - p.PadW + kw*p.DilW; iw >= 0 && iw < p.W {
				out[j] = in[iw]
			}
		}
	})
}

// col2im adds the columns of col back into image dx [C,H,W] (which it does
// not zero): the adjoint of im2col.
func col2im[T Float](dx, col []T, p Conv2DParams) {
	ow := p.OutW()
	rows(p, func(colOff, inOff, kw int) {
		src, in := col[colOff:colOff+ow], dx[inOff:inOff+p.W]
		for j, v := range src {
			if iw := j*p.StrideW - p.PadW + kw*p.DilW; iw >= 0 && iw < p.W {
				in[iw] += v
			}
		}
	})
}

// perImage runs body for each image of the batch over the cores, giving each
// worker its own column buffer (nil for pointwise kernels).
func perImage[T Float](p Conv2DParams, body func(n int, col []T)) {
	rows, cols := colShape(p)
	parallelFor(p.N, p.O*rows*cols, func(lo, hi int) {
		var col []T
		if !pointwise(p) {
			col = make([]T, rows*cols)
		}
		for n := lo; n < hi; n++ {
			body(n, col)
		}
	})
}

// conv2dForward computes y [N,O,OH,OW] from x [N,C,H,W] and w [O,C,KH,KW].
func conv2dForward[T Float](y, x, w []T, p Conv2DParams) {
	rows, cols := colShape(p)
	img, out := p.C*p.H*p.W, p.O*cols
	perImage(p, func(n int, col []T) {
		xn := x[n*img : (n+1)*img]
		if col == nil {
			col = xn
		} else {
			im2col(col, xn, p)
		}
		gemm(false, false, p.O, cols, rows, 1, w, rows, col, cols, 0, y[n*out:(n+1)*out], cols)
	})
}

// conv2dBackwardInput computes dx = ∂Σ(y·dy)/∂x: per image the columns
// Wᵀ·dy_n folded back by col2im.
func conv2dBackwardInput[T Float](dx, dy, w []T, p Conv2DParams) {
	rows, cols := colShape(p)
	img, out := p.C*p.H*p.W, p.O*cols
	perImage(p, func(n int, col []T) {
		dxn := dx[n*img : (n+1)*img]
		if col == nil {
			gemm(true, false, rows, cols, p.O, 1, w, rows, dy[n*out:(n+1)*out], cols, 0, dxn, cols)
			return
		}
		gemm(true, false, rows, cols, p.O, 1, w, rows, dy[n*out:(n+1)*out], cols, 0, col, cols)
		clear(dxn)
		col2im(dxn, col, p)
	})
}

// conv2dBackwardWeight computes dw = Σ_n dy_n·col_nᵀ, each worker summing
// its images into a private buffer.
func conv2dBackwardWeight[T Float](dw, x, dy []T, p Conv2DParams) {
	rows, cols := colShape(p)
	img, out := p.C*p.H*p.W, p.O*cols
	clear(dw)
	if p.N == 0 {
		return
	}
	partial := make(chan []T, max(p.N, 1))
	parallelFor(p.N, p.O*rows*cols, func(lo, hi int) {
		acc := make([]T, len(dw))
		var col []T
		if !pointwise(p) {
			col = make([]T, rows*cols)
		}
		for n := lo; n < hi; n++ {
			xn := x[n*img : (n+1)*img]
			c := col
			if c == nil {
				c = xn
			} else {
				im2col(c, xn, p)
			}
			gemm(false, true, p.O, rows, cols, 1, dy[n*out:(n+1)*out], cols, c, cols, 1, acc, rows)
		}
		partial <- acc
	})
	close(partial)
	for acc := range partial {
		for i, v := range acc {
			dw[i] += v
		}
	}
}
