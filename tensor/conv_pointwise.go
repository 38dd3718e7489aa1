package tensor

// Convolutions on small maps by im2col: an image's product W·col_n has
// fewer columns than two of the GEMM's column tiles (ResNet-50's 7×7
// maps: 49), so that one GEMM an image leaves a tile part empty and
// streams the weights once for every image (batchesForward). These layers instead lay the
// batch's columns side by side, [C·KH·KW, N·OH·OW] (for a pointwise,
// 1×1 stride-1 unpadded convolution the images themselves), and take one
// GEMM over them: each element is the same sum, in the same k-blocks, as
// the GEMM of its image, so the results agree to the bit. The forward
// pass does so for any kernel, the input gradient for pointwise ones.

// batchesForward reports a convolution of several images whose output
// maps hold fewer than two column tiles of the GEMM's micro-kernel for T,
// pointwise or with more than batchedWeights weights.
func batchesForward[T Float](p Conv2DParams) bool {
	return p.N > 1 && p.OutH()*p.OutW() < 2*kernelFor[T]().nr && (pointwise(p) || p.O*p.C*p.KH*p.KW > batchedWeights)
}

// batchedWeights is the most weights a convolution of other than 1×1
// kernels has and still takes one GEMM an image: 1 MB of float32, about
// a core's L2, which the weights then stay in from one image to the
// next. Past it they are streamed from memory once an image (ResNet-50's
// 512→512 3×3 layer at stride 2 to 7×7 maps, batch 16: 18.8 ms image by
// image, 14.9 batched); below it the batch's columns, nine times its
// inputs, do not stay in cache (ResNet-20's 64→64 on 7×7, batch 100: 2.0
// ms image by image, 3.3 batched; bench/convchoice).
const batchedWeights = 1 << 18

// batchesColumns reports a pointwise convolution that batchesForward,
// whose input gradient is then one GEMM too.
func batchesColumns[T Float](p Conv2DParams) bool {
	return pointwise(p) && batchesForward[T](p)
}

// maxBatchedColumns bounds the side-by-side columns of one GEMM
// (batchedForward): 32 MB of float32.
const maxBatchedColumns = 1 << 23

// batchedForward is im2colForward for batchesForward: y = W·col over
// the batch's columns (a pointwise convolution's images) side by side, at
// most maxBatchedColumns values of them a GEMM, then e on each plane.
func batchedForward[T Float](y, x, w []T, e *epilogue[T], p Conv2DParams) {
	rows, cols := colShape(p)
	img, out := p.C*p.H*p.W, p.O*cols
	g := min(p.N, max(1, maxBatchedColumns/(rows*cols)))
	it := getScratch[T](rows * g * cols)
	defer putScratch(it)
	for n0 := 0; n0 < p.N; n0 += g {
		q := p
		q.N = min(g, p.N-n0)
		perImage(q, q.N, func(lo, hi int, col []T) {
			for n := lo; n < hi; n++ {
				c := columns(col, x[(n0+n)*img:(n0+n+1)*img], p)
				moveRows((*it)[n*cols:], c, rows, cols, q.N*cols, cols, false)
			}
		})
		sideBySideProduct(y[n0*out:], *it, w, false, q.N, rows, p.O, cols)
	}
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
	it := getScratch[T](ci * n * cols)
	defer putScratch(it)
	sideBySide(*it, in, n, ci, cols)
	sideBySideProduct(out, *it, w, trans, n, ci, co, cols)
}

// sideBySideProduct sets out [n, co, cols] to op(w)·it, it [ci, n·cols] holding
// n images' columns side by side, as overBatch.
func sideBySideProduct[T Float](out, it, w []T, trans bool, n, ci, co, cols int) {
	ot := getScratch[T](co * n * cols)
	defer putScratch(ot)
	lda := ci
	if trans {
		lda = co
	}
	gemm(trans, false, co, n*cols, ci, 1, w, lda, it, n*cols, 0, *ot, n*cols)
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
