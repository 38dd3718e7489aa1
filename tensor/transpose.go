package tensor

// transposeTile is the side of the tiles transposeCopy moves: 32×32
// values, whose source columns and destination rows stay in the L1 cache.
const transposeTile = 32

// transposeCopy copies src into the contiguous dst when src is a
// transposed view: its last two axes [R, C] have strides 1 and R (the
// swap of a contiguous [C, R] block), each leading axis the stride of
// the blocks it steps over. It moves tiles of transposeTile² values, over
// the cores, so that both sides go a cache line at a time where the
// row-by-row walk reads one value per line. It reports false, copying
// nothing, for any other view.
func transposeCopy[T Float](dst, src *Tensor[T]) bool {
	nd := len(src.shape)
	if nd < 2 || !dst.IsContiguous() {
		return false
	}
	r, c := src.shape[nd-2], src.shape[nd-1]
	if r < 2 || c < 2 || src.strides[nd-2] != 1 || src.strides[nd-1] != r {
		return false
	}
	batch := 1
	for d := nd - 3; d >= 0; d-- {
		if src.shape[d] != 1 && src.strides[d] != r*c*batch {
			return false
		}
		batch *= src.shape[d]
	}
	s, d := host(src)[src.offset:], host(dst)[dst.offset:]
	rowTiles := (r + transposeTile - 1) / transposeTile
	parallelFor(batch*rowTiles, transposeTile*c, func(lo, hi int) {
		for t := lo; t < hi; t++ {
			base, i0 := t/rowTiles*r*c, t%rowTiles*transposeTile
			i1 := min(i0+transposeTile, r)
			for j0 := 0; j0 < c; j0 += transposeTile {
				for j := j0; j < min(j0+transposeTile, c); j++ {
					col := s[base+j*r : base+j*r+r]
					for i := i0; i < i1; i++ {
						d[base+i*c+j] = col[i]
					}
				}
			}
		}
	})
	return true
}
