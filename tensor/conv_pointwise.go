package tensor

// Pointwise (1×1, stride-1, unpadded) convolutions on small maps: an
// image's product W·x_n has fewer columns than two of the GEMM's column
// tiles (ResNet-50's 7×7 maps: 49), so that one GEMM an image leaves a
// tile part empty and streams the weights once for every image. These
// layers instead lay the batch's columns side by side, [C, N·H·W], and
// take one GEMM over them: each element is the same sum, in the same
// k-blocks, as the GEMM of its image, so the results agree to the bit.

// batchesColumns reports a pointwise convolution whose images hold fewer
// than two column tiles of the GEMM's micro-kernel for T.
func batchesColumns[T Float](p Conv2DParams) bool {
	return pointwise(p) && p.N > 1 && p.H*p.W < 2*kernelFor[T]().nr
}

// pointwiseForward is im2colForward for batchesColumns: y = W·x over
// the batch's columns, then e on each plane.
func pointwiseForward[T Float](y, x, w []T, e *epilogue[T], p Conv2DParams) {
	cols := p.H * p.W
	overBatch(y, x, w, false, p.N, p.C, p.O, cols)
	if e == nil {
		return
	}
	parallelFor(p.N, 2*p.O*cols, func(lo, hi int) {
		for n := lo; n < hi; n++ {
			for o := range p.O {
				plane := y[(n*p.O+o)*cols:][:cols]
				if e.bias != nil {
					for j, v := range plane {
						plane[j] = v + e.bias[o]
					}
					continue
				}
				e.affine(plane, n, o, p.O)
			}
		}
	})
}

// pointwiseInputGrad is conv2dBackwardInput for batchesColumns: dx =
// Wᵀ·dy over the batch's columns.
func pointwiseInputGrad[T Float](dx, dy, w []T, p Conv2DParams) {
	overBatch(dx, dy, w, true, p.N, p.O, p.C, p.H*p.W)
}

// overBatch sets out [n, co, cols] to op(w)·in for each of the n images of
// in [n, ci, cols], op(w) [co, ci] being w [co, ci] or, with trans, the
// transpose of w [ci, co]: one GEMM over the images' columns side by side.
func overBatch[T Float](out, in, w []T, trans bool, n, ci, co, cols int) {
	it, ot := getScratch[T](ci*n*cols), getScratch[T](co*n*cols)
	defer func() { putScratch(it); putScratch(ot) }()
	sideBySide(*it, in, n, ci, cols)
	lda := ci
	if trans {
		lda = co
	}
	gemm(trans, false, co, n*cols, ci, 1, w, lda, *it, n*cols, 0, *ot, n*cols)
	imagesOf(out, *ot, n, co, cols)
}

// sideBySide sets t [c, n·cols] to the images of x [n, c, cols] side by
// side: t[ch, i·cols + j] = x[i, ch, j].
func sideBySide[T Float](t, x []T, n, c, cols int) {
	parallelFor(c, n*cols, func(lo, hi int) {
		for ch := lo; ch < hi; ch++ {
			for i := range n {
				copy(t[(ch*n+i)*cols:][:cols], x[(i*c+ch)*cols:])
			}
		}
	})
}

// imagesOf is sideBySide's inverse: x[i, ch, j] = t[ch, i·cols + j].
func imagesOf[T Float](x, t []T, n, c, cols int) {
	parallelFor(n, c*cols, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for ch := range c {
				copy(x[(i*c+ch)*cols:][:cols], t[(ch*n+i)*cols:])
			}
		}
	})
}
