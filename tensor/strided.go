package tensor

// strided walks views of one common shape in row-major order, one innermost
// row at a time: fn gets each operand's offset of the row's first element, the
// row length and each operand's stride along the row. Dimensions are coalesced
// first, so dense views make one long row, and rows are split over cores when
// the work is large. The first operand must not alias itself (no stride-0
// dimension of size > 1), since rows may be written concurrently.
func strided(shape []int, strides [][]int, offsets []int, fn func(offs []int, n int, inner []int)) {
	if numel(shape) == 0 {
		return
	}
	k := len(strides)
	// Coalesce: drop size-1 dims, merge a dim into the next when every
	// operand steps through them as one.
	var sizes []int
	var st [][]int // st[d][operand]
	for d, n := range shape {
		if n == 1 {
			continue
		}
		cur := make([]int, k)
		for o := range strides {
			cur[o] = strides[o][d]
		}
		if last := len(sizes) - 1; last >= 0 {
			merge := true
			for o := range cur {
				if st[last][o] != cur[o]*n {
					merge = false
					break
				}
			}
			if merge {
				sizes[last] *= n
				st[last] = cur
				continue
			}
		}
		sizes = append(sizes, n)
		st = append(st, cur)
	}
	if len(sizes) == 0 {
		fn(append([]int(nil), offsets...), 1, make([]int, k))
		return
	}
	inner := sizes[len(sizes)-1]
	innerSt := st[len(st)-1]
	outer, outerSt := sizes[:len(sizes)-1], st[:len(st)-1]
	rows := numel(outer)
	parallelFor(rows, inner, func(lo, hi int) {
		idx := make([]int, len(outer))
		offs := append([]int(nil), offsets...)
		r := lo
		for d := len(outer) - 1; d >= 0; d-- {
			idx[d] = r % outer[d]
			r /= outer[d]
			for o := range offs {
				offs[o] += idx[d] * outerSt[d][o]
			}
		}
		for row := lo; row < hi; row++ {
			fn(offs, inner, innerSt)
			for d := len(outer) - 1; d >= 0; d-- {
				idx[d]++
				for o := range offs {
					offs[o] += outerSt[d][o]
				}
				if idx[d] < outer[d] {
					break
				}
				for o := range offs {
					offs[o] -= outer[d] * outerSt[d][o]
				}
				idx[d] = 0
			}
		}
	})
}

// dense reports whether the views of one shape are all row-major dense,
// so that element i of each is at its offset + i: one row, nothing to
// coalesce.
func dense[T Float](ts ...*Tensor[T]) bool {
	for _, t := range ts {
		if !t.IsContiguous() {
			return false
		}
	}
	return true
}

// smallDense reports whether views of one shape are dense and too small
// for parallelFor to split them, so that forEach can call fn once, without
// strided's bookkeeping (this is every elementwise op of a small model).
func smallDense[T Float](ts ...*Tensor[T]) bool {
	return ts[0].Len() < grain && dense(ts...)
}

func forEach1[T Float](a *Tensor[T], fn func(d []T, od, n, sd int)) {
	d := host(a)
	if smallDense(a) {
		fn(d, a.offset, a.Len(), 1)
		return
	}
	strided(a.shape, [][]int{a.strides}, []int{a.offset}, func(o []int, n int, s []int) {
		fn(d, o[0], n, s[0])
	})
}

func forEach2[T Float](a, b *Tensor[T], fn func(d []T, od, ob, n, sd, sb int)) {
	d := host(a)
	if smallDense(a, b) {
		fn(d, a.offset, b.offset, a.Len(), 1, 1)
		return
	}
	strided(a.shape, [][]int{a.strides, b.strides}, []int{a.offset, b.offset}, func(o []int, n int, s []int) {
		fn(d, o[0], o[1], n, s[0], s[1])
	})
}

func forEach3[T Float](a, b, c *Tensor[T], fn func(d []T, od, ob, oc, n, sd, sb, sc int)) {
	d := host(a)
	if smallDense(a, b, c) {
		fn(d, a.offset, b.offset, c.offset, a.Len(), 1, 1, 1)
		return
	}
	strided(a.shape, [][]int{a.strides, b.strides, c.strides}, []int{a.offset, b.offset, c.offset}, func(o []int, n int, s []int) {
		fn(d, o[0], o[1], o[2], n, s[0], s[1], s[2])
	})
}
