package tensor

import (
	"math"
	"slices"
)

// The sparse rows of softWide: on lattice anchors (the simplex grid of the
// canonical ECL) at the ECL's temperature a point's assignment has a few
// nonzeros, near its largest coordinates. latticeRow finds them by an
// exponential per coordinate and a product per anchor, O(E + B) a point,
// and the row loops then scan the B entries for them; sparseRow finds the
// coordinates whose factor F_c = e^{−2ku(x_c − max x)} does not underflow
// (one comparison each), then the anchors built on those coordinates only
// (latticeIndex), and returns the nonzeros as (anchor, weight) pairs, bit
// for bit the values latticeRow gives. The statistics and their gradient
// then run over the pairs (addStatsAt, statsBackAt, rowBackAt), in the
// order and arithmetic of the dense rows.

// latticeIndex lists, per coordinate c, the anchors whose sparse part's
// first nonzero coordinate is c: byFirst[start[c]:start[c+1]], anchors
// ascending. bare are the anchors equal to the offset (no nonzero part).
type latticeIndex struct {
	start   []int32
	byFirst []int32
	bare    []int32
}

// buildLatticeIndex builds s.index from s.start and s.idx.
func (s *anchorSet[T]) buildLatticeIndex() {
	ix := &s.index
	ix.start = make([]int32, s.e+1)
	for j := range len(s.norm) {
		if s.start[j] < s.start[j+1] {
			ix.start[s.idx[s.start[j]]+1]++
		}
	}
	for c := range s.e {
		ix.start[c+1] += ix.start[c]
	}
	ix.byFirst = make([]int32, ix.start[s.e])
	next := append([]int32(nil), ix.start[:s.e]...)
	for j := range len(s.norm) {
		if s.start[j] == s.start[j+1] {
			ix.bare = append(ix.bare, int32(j))
			continue
		}
		c := s.idx[s.start[j]]
		ix.byFirst[next[c]] = int32(j)
		next[c]++
	}
}

// sparseScratch is sparseRow's per-goroutine scratch: f [E] the factors
// F_c, zero but at the live coordinates of the point at hand, live their
// indices, and the candidate anchors and terms.
type sparseScratch struct {
	f     []float64
	live  []int32
	cand  []int32
	terms []float64
}

func (s *anchorSet[T]) sparseScratch() *sparseScratch {
	return &sparseScratch{f: make([]float64, s.e)}
}

// sparseRow appends the nonzeros of latticeRow(x) to js (anchors,
// ascending) and ws (weights) and returns them, with ok true; it returns
// ok false where latticeRow would (x not finite, the terms' sum out of
// range) or where the point has more than most nonzeros, leaving the point
// to the dense rows. Its work is O(E) and the candidates' nonzero parts,
// never more than latticeRow's.
func (s *anchorSet[T]) sparseRow(js []int32, ws []T, x []T, sc *sparseScratch, most int) (_ []int32, _ []T, ok bool) {
	xm, _ := wideMax(x)
	xmax := float64(xm)
	if math.IsInf(xmax, 0) || math.IsNaN(xmax) {
		return js, ws, false
	}
	c := -2 * float64(s.k) * s.unit
	// The coordinates with c·(x_i − max x) ≥ expUnderflow: a comparison
	// with a bound a little below theirs picks candidates, the exact test
	// decides.
	lo := xmax + expUnderflow/c*(1+1e-9) - 1e-300
	sc.live = sc.live[:0]
	defer func() {
		for _, i := range sc.live {
			sc.f[i] = 0
		}
	}()
	for i, v := range x {
		if float64(v) < lo {
			continue
		}
		if a := c * (float64(v) - xmax); !(a < expUnderflow) {
			sc.f[i] = math.Exp(a)
			sc.live = append(sc.live, int32(i))
		}
	}
	sc.cand, sc.terms = append(sc.cand[:0], s.index.bare...), sc.terms[:0]
	for _, i := range sc.live {
		sc.cand = append(sc.cand, s.index.byFirst[s.index.start[i]:s.index.start[i+1]]...)
	}
	slices.Sort(sc.cand)
	sum := 0.0
	for _, j := range sc.cand {
		v := s.lift[j]
		for q := s.start[j]; q < s.start[j+1]; q++ {
			f := sc.f[s.idx[q]]
			pw := 1.0 // F^p as latticeRow's table takes it
			for range s.pow[q] {
				pw *= f
			}
			v *= pw
		}
		sc.terms = append(sc.terms, v)
		sum += v
	}
	if !(sum > 1e-300) || math.IsInf(sum, 0) {
		return js, ws, false
	}
	inv, n := 1/sum, len(js)
	for t, j := range sc.cand {
		if w := T(sc.terms[t] * inv); w != 0 {
			if len(js)-n == most {
				return js, ws, false
			}
			js, ws = append(js, j), append(ws, w)
		}
	}
	return js, ws, true
}

// sparseRows is the sparse assignment of a chunk of points: point i's
// nonzeros are js, ws[at[i]:at[i+1]].
type sparseRows[T Float] struct {
	js []int32
	ws []T
	at []int
	sc *sparseScratch
}

// row is point i's nonzeros.
func (r *sparseRows[T]) row(i int) ([]int32, []T) {
	return r.js[r.at[i]:r.at[i+1]], r.ws[r.at[i]:r.at[i+1]]
}

// softWideSparseRows turns the sparse rows on; tests turn them off to
// compare with the dense rows.
var softWideSparseRows = true

// sparseRows returns a goroutine's sparse rows where softWide takes them
// (lattice anchors and values of more than one dimension: statsRowBackward
// keeps d = 1 in a register), else nil.
func (v *softWide[T]) sparseRows() *sparseRows[T] {
	if !softWideSparseRows || v.as.unit == 0 || v.as.index.start == nil || v.d < 2 {
		return nil
	}
	return &sparseRows[T]{sc: v.as.sparseScratch()}
}

// assignSparse sets r to the sparse assignment of the m points xs and
// reports whether every point has one and their nonzeros stay under the
// chunk's dense bound (softWide.dense).
func (v *softWide[T]) assignSparse(r *sparseRows[T], xs []T) bool {
	e := v.as.e
	m := len(xs) / e
	most := m * v.b / softWideSparse
	r.js, r.ws, r.at = r.js[:0], r.ws[:0], append(r.at[:0], 0)
	for i := range m {
		var ok bool
		r.js, r.ws, ok = v.as.sparseRow(r.js, r.ws, xs[i*e:(i+1)*e], r.sc, most-len(r.js))
		if !ok {
			return false
		}
		r.at = append(r.at, len(r.js))
	}
	return true
}

// addStatsSparse is addStats for one sample's nonzeros js, ws.
func addStatsSparse[T Float](acc []float64, js []int32, ws, p []T) {
	pp := sumSquares(p)
	for t, j := range js {
		addStatsAt(acc, int(j), ws[t], p, pp)
	}
}

// statsRowBackwardSparse is statsRowBackward (all false) for one sample's
// nonzeros js, ws: it sets dw[t] for the anchor js[t].
func statsRowBackwardSparse[T Float](dw, dp []T, js []int32, ws, p, ds []T) {
	pp := sumSquares(p)
	for t, j := range js {
		dw[t] = statsBackAt(dp, ds, int(j), ws[t], p, pp)
	}
}

// rowBackwardSparse is rowBackward (E > 1) for one point's nonzeros js, ws
// and their output gradients dw.
func (s *anchorSet[T]) rowBackwardSparse(dx, dw []T, js []int32, ws, x []T) {
	var dot T
	for t, v := range ws {
		dot += v * dw[t]
	}
	k2 := 2 * s.k
	for t, j := range js {
		s.rowBackAt(dx, k2*ws[t]*(dw[t]-dot), int(j), x)
	}
}
