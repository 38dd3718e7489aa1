package tensor

// softWide is the soft binning (SoftBinStats and its backward) of points in
// one group on many anchors with wide values, B·(D+2) ≥ softWideMin
// (canonical ECL at large K: K = 1,000 has B = 1,000 anchors and D = 1,000),
// where the statistics are matrix products: with ω [R, B] the assignment
// of a chunk of R samples and P̃ = [1, p, ‖p‖²] [R, D+2] its values
// extended by a leading 1 and their squared norm, the chunk adds
// ωᵀ·P̃ [B, D+2] to the statistics; for their gradient ds [B, D+2],
// dω = P̃·dsᵀ [R, B] and ω·ds [R, D+2] holds dp = ω·dm + 2p·(ω·dq). The
// products run through the engine's GEMM; each chunk's ω is computed row by
// row (anchorSet.row: the simplex anchors' distances are sparse, O(E + B)
// per sample, so they need no product), and dx from dω as the scalar rows
// do, over the anchors' nonzero offsets (wideRowBackward).
//
// A chunk whose ω has few nonzeros (at the ECL temperature ω is nearly
// one-hot, a few anchors per sample), or which holds a value that is not
// finite, takes the scalar rows instead (addStats, statsRowBackward,
// rowBackward), which skip the zeros: a product would cost B·(D+2) per
// sample and spread a NaN to every bin. On lattice anchors the chunk's
// nonzeros are found first (sparseRows, softbin_sparse.go), without
// writing or scanning the B entries of each ω. The float32 vector kernels
// (softCanon) do not apply here: their per-lane sums, 16·B·(D+2) values,
// outgrow the caches.
type softWide[T Float] struct {
	as   *anchorSet[T]
	b, d int
}

// softWideMin is B·(D+2) from which the CPU bodies of SoftBinStats take
// softWide: from K = 128 canonical (the vector kernels' per-lane sums then
// pass 1 MB, an L2). A variable so that tests can lower it.
var softWideMin = 1 << 14

const (
	softWideRows   = 256 // samples per chunk
	softWideFold   = 8   // dense chunks summed in T before a fold into float64
	softWideSparse = 16  // a chunk is dense when over 1/16 of its ω is nonzero
)

// newSoftWide returns softWide for as, g groups and values of dimension d,
// or nil where it does not apply (several groups, fewer than softWideMin
// statistics).
func newSoftWide[T Float](as *anchorSet[T], g, d int) *softWide[T] {
	if g != 1 || len(as.norm)*(d+2) < softWideMin {
		return nil
	}
	return &softWide[T]{as: as, b: len(as.norm), d: d}
}

// assign sets w [m, B] to the assignment of the m points xs and returns
// its nonzeros and whether all of them are finite.
func (v *softWide[T]) assign(w, xs []T, tmp []float64) (nz int, ok bool) {
	e := v.as.e
	var z T
	for i := range len(xs) / e {
		row := w[i*v.b : (i+1)*v.b]
		v.as.row(row, xs[i*e:(i+1)*e], tmp)
		for _, s := range row {
			if s != 0 {
				nz++
				z += s * 0 // NaN for an infinity or a NaN
			}
		}
	}
	return nz, z == 0
}

// extend sets pt [m, D+2] to the rows [1, p, ‖p‖²] of the m values ps
// (‖p‖² summed in T as addStats does) and reports whether they are finite.
func (v *softWide[T]) extend(pt, ps []T) bool {
	d, c := v.d, v.d+2
	var z T
	for i := range len(ps) / d {
		p, row := ps[i*d:(i+1)*d], pt[i*c:(i+1)*c]
		var pp T
		for _, s := range p {
			pp += T(s * s)
		}
		row[0], row[c-1] = 1, pp
		copy(row[1:], p)
		z += pp * 0
	}
	return z == 0
}

// dense reports whether a chunk of m rows with nz nonzero assignments goes
// through the products.
func (v *softWide[T]) dense(nz, m int) bool { return nz*softWideSparse > m*v.b }

// stats sets out [B, D+2] to the statistics of the points xs under the
// values ps, over blockSums' partition of the samples (as the scalar rows).
func (v *softWide[T]) stats(out, xs, ps []T) {
	e, b, d, c := v.as.e, v.b, v.d, v.d+2
	n := len(xs) / e
	blockSums(n, b*c, 1, out, func(acc []float64, lo, hi int) {
		buf := getScratch[T](softWideRows*(b+c) + b*c)
		defer putScratch(buf)
		w, pt, sum := (*buf)[:softWideRows*b], (*buf)[softWideRows*b:softWideRows*(b+c)], (*buf)[softWideRows*(b+c):]
		tmp, pending := v.as.scratch(), 0
		sr := v.sparseRows()
		fold := func() {
			for i, s := range sum {
				acc[i] += float64(s)
			}
			pending = 0
		}
		for r0 := lo; r0 < hi; r0 += softWideRows {
			m := min(softWideRows, hi-r0)
			ps := ps[r0*d : (r0+m)*d]
			if sr != nil && v.assignSparse(sr, xs[r0*e:(r0+m)*e]) {
				for i := range m {
					js, ws := sr.row(i)
					addStatsSparse(acc, js, ws, ps[i*d:(i+1)*d])
				}
				continue
			}
			nz, ok := v.assign(w[:m*b], xs[r0*e:(r0+m)*e], tmp)
			if !ok || !v.dense(nz, m) || !v.extend(pt[:m*c], ps) {
				for i := range m {
					addStats(acc, w[i*b:(i+1)*b], ps[i*d:(i+1)*d])
				}
				continue
			}
			beta := T(1)
			if pending == 0 {
				beta = 0
			}
			gemmSerial(true, false, b, c, m, 1, w, b, pt, c, beta, sum, c) // sum (+)= ωᵀ·P̃
			if pending++; pending == softWideFold {
				fold()
			}
		}
		if pending > 0 {
			fold()
		}
	})
}

// grad sets dxs and dps, zero before, to the gradients of the statistics
// of the points xs under the values ps for their gradient ds [B, D+2].
func (v *softWide[T]) grad(dxs, dps, ds, xs, ps []T) {
	e, b, d, c := v.as.e, v.b, v.d, v.d+2
	n := len(xs) / e
	var z T
	for _, s := range ds {
		z += s * 0
	}
	dsOK := z == 0 // a NaN in ds would reach every bin through the products
	chunks := (n + softWideRows - 1) / softWideRows
	parallelFor(chunks, softWideRows*b*(2*c+e), func(lo, hi int) {
		buf := getScratch[T](softWideRows * 2 * (b + c))
		defer putScratch(buf)
		w, dw := (*buf)[:softWideRows*b], (*buf)[softWideRows*b:2*softWideRows*b]
		pt, g := (*buf)[2*softWideRows*b:softWideRows*(2*b+c)], (*buf)[softWideRows*(2*b+c):]
		tmp, sr := v.as.scratch(), v.sparseRows()
		for ch := lo; ch < hi; ch++ {
			r0 := ch * softWideRows
			m := min(softWideRows, n-r0)
			x, p, dx, dp := xs[r0*e:(r0+m)*e], ps[r0*d:(r0+m)*d], dxs[r0*e:(r0+m)*e], dps[r0*d:(r0+m)*d]
			if sr != nil && v.assignSparse(sr, x) {
				for i := range m {
					js, ws := sr.row(i)
					dwi := dw[:len(js)]
					statsRowBackwardSparse(dwi, dp[i*d:(i+1)*d], js, ws, p[i*d:(i+1)*d], ds)
					v.as.rowBackwardSparse(dx[i*e:(i+1)*e], dwi, js, ws, x[i*e:(i+1)*e])
				}
				continue
			}
			nz, ok := v.assign(w[:m*b], x, tmp)
			if !dsOK || !ok || !v.dense(nz, m) || !v.extend(pt[:m*c], p) {
				for i := range m {
					wi, dwi, xi := w[i*b:(i+1)*b], dw[i*b:(i+1)*b], x[i*e:(i+1)*e]
					statsRowBackward(dwi, dp[i*d:(i+1)*d], wi, p[i*d:(i+1)*d], ds, false)
					v.as.rowBackward(dx[i*e:(i+1)*e], dwi, wi, xi)
				}
				continue
			}
			gemmSerial(false, true, m, b, c, 1, pt, c, ds, c, 0, dw, b) // dω = P̃·dsᵀ
			gemmSerial(false, false, m, c, b, 1, w, b, ds, c, 0, g, c)  // ω·ds
			for i := range m {
				gi, pi, dpi := g[i*c:(i+1)*c], p[i*d:(i+1)*d], dp[i*d:(i+1)*d]
				for k, s := range pi {
					dpi[k] += gi[1+k] + 2*gi[c-1]*s
				}
				v.as.wideRowBackward(dx[i*e:(i+1)*e], dw[i*b:(i+1)*b], w[i*b:(i+1)*b], x[i*e:(i+1)*e])
			}
		}
	})
}

// wideRowBackward is rowBackward for an assignment w with many nonzeros:
// with dz_j = 2k·w_j·(dw_j − Σ_r w_r·dw_r) and S = Σ_j dz_j, it adds
// Σ_j dz_j·(x − a_j) = S·(x − o) − Σ_j dz_j·(a_j − o) to dx, over the
// anchors' nonzero offsets from o: O(E + B) for the simplex anchors
// instead of O(E·B).
func (s *anchorSet[T]) wideRowBackward(dx, dw, w, x []T) {
	var dot T
	for j, v := range w {
		dot += v * dw[j]
	}
	k2 := 2 * s.k
	var sum T
	for j, v := range w {
		if v == 0 {
			continue
		}
		dz := k2 * v * (dw[j] - dot)
		sum += dz
		for t := s.start[j]; t < s.start[j+1]; t++ {
			dx[s.idx[t]] -= dz * s.val[t]
		}
	}
	for i, xv := range x {
		dx[i] += sum * (xv - s.off[i])
	}
}
