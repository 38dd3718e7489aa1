package tensor

import (
	"maps"
	"slices"
	"sync"
)

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

// span is the range [lo, hi) of output positions o in [0, n) whose input
// position o·stride - pad + off lies in [0, size).
func span(n, stride, pad, off, size int) (lo, hi int) {
	if a := pad - off; a > 0 {
		lo = (a + stride - 1) / stride
	}
	if b := size - 1 + pad - off; b >= 0 {
		hi = min(n, b/stride+1)
	}
	return lo, max(lo, hi)
}

// colRuns calls f for every run of the column matrix of one image that reads
// one input row: col[ci+j] ↔ x[xi+j·StrideW] for j < n, offsets within the
// image. Column entries outside every run are padding.
func colRuns(p Conv2DParams, f func(ci, xi, n int)) {
	oh, ow := p.OutH(), p.OutW()
	for c := 0; c < p.C; c++ {
		for kh := 0; kh < p.KH; kh++ {
			ylo, yhi := span(oh, p.StrideH, p.PadH, kh*p.DilH, p.H)
			for kw := 0; kw < p.KW; kw++ {
				xlo, xhi := span(ow, p.StrideW, p.PadW, kw*p.DilW, p.W)
				if xlo == xhi {
					continue
				}
				row := ((c*p.KH+kh)*p.KW + kw) * oh * ow
				for y := ylo; y < yhi; y++ {
					ih, iw := y*p.StrideH-p.PadH+kh*p.DilH, xlo*p.StrideW-p.PadW+kw*p.DilW
					f(row+y*ow+xlo, (c*p.H+ih)*p.W+iw, xhi-xlo)
				}
			}
		}
	}
}

// im2col copies the receptive fields of image x [C,H,W] into col
// [C·KH·KW, OH·OW], with zeros for padding.
func im2col[T Float](col, x []T, p Conv2DParams) {
	clear(col)
	s := p.StrideW
	colRuns(p, func(ci, xi, n int) {
		out := col[ci : ci+n]
		if s == 1 {
			copy(out, x[xi:])
			return
		}
		for j := range out {
			out[j] = x[xi+j*s]
		}
	})
}

// col2im adds the columns of col back into image dx [C,H,W] (which it does
// not zero): the adjoint of im2col.
func col2im[T Float](dx, col []T, p Conv2DParams) {
	s := p.StrideW
	colRuns(p, func(ci, xi, n int) {
		for j, v := range col[ci : ci+n] {
			dx[xi+j*s] += v
		}
	})
}

// perWorker splits the batch over the cores, giving each worker its image
// range [lo, hi) and its own column buffer (nil for pointwise kernels).
func perWorker[T Float](p Conv2DParams, body func(lo, hi int, col []T)) {
	rows, cols := colShape(p)
	parallelFor(p.N, p.O*rows*cols, func(lo, hi int) {
		var col []T
		if !pointwise(p) {
			col = make([]T, rows*cols)
		}
		body(lo, hi, col)
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

// conv2dForward computes y [N,O,OH,OW] from x [N,C,H,W] and w [O,C,KH,KW]:
// per image y_n = W·col_n.
func conv2dForward[T Float](y, x, w []T, p Conv2DParams) {
	rows, cols := colShape(p)
	img, out := p.C*p.H*p.W, p.O*cols
	perWorker(p, func(lo, hi int, col []T) {
		for n := lo; n < hi; n++ {
			c := columns(col, x[n*img:(n+1)*img], p)
			gemm(false, false, p.O, cols, rows, 1, w, rows, c, cols, 0, y[n*out:(n+1)*out], cols)
		}
	})
}

// conv2dBackwardInput computes dx [N,C,H,W] = ∂Σ(y·dy)/∂x: per image the
// columns Wᵀ·dy_n folded back by col2im.
func conv2dBackwardInput[T Float](dx, dy, w []T, p Conv2DParams) {
	rows, cols := colShape(p)
	img, out := p.C*p.H*p.W, p.O*cols
	perWorker(p, func(lo, hi int, col []T) {
		for n := lo; n < hi; n++ {
			dxn := dx[n*img : (n+1)*img]
			dst := col
			if col == nil {
				dst = dxn
			}
			gemm(true, false, rows, cols, p.O, 1, w, rows, dy[n*out:(n+1)*out], cols, 0, dst, cols)
			if col != nil {
				clear(dxn)
				col2im(dxn, col, p)
			}
		}
	})
}

// conv2dBackwardWeight computes dw [O,C,KH,KW] = Σ_n dy_n·col_nᵀ. Each worker
// sums its images into a private buffer; the buffers are added in image
// order, so the result does not depend on scheduling.
func conv2dBackwardWeight[T Float](dw, x, dy []T, p Conv2DParams) {
	rows, cols := colShape(p)
	img, out := p.C*p.H*p.W, p.O*cols
	var mu sync.Mutex
	partials := map[int][]T{}
	perWorker(p, func(lo, hi int, col []T) {
		acc := make([]T, len(dw))
		for n := lo; n < hi; n++ {
			c := columns(col, x[n*img:(n+1)*img], p)
			gemm(false, true, p.O, rows, cols, 1, dy[n*out:(n+1)*out], cols, c, cols, 1, acc, rows)
		}
		mu.Lock()
		partials[lo] = acc
		mu.Unlock()
	})
	clear(dw)
	for _, lo := range slices.Sorted(maps.Keys(partials)) {
		for i, v := range partials[lo] {
			dw[i] += v
		}
	}
}
