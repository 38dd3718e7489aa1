package tensor

import (
	"math"
	"slices"
	"sync"
)

// The scalar loops of the soft binning (softbin.go): the anchors prepared
// in T, one sample's assignment and its gradient, one sample's statistics
// and their gradient, and the partition of the samples for the sums.

// anchorSet is sb in T, prepared for the row loops. For points of more
// than one dimension, each anchor is the common offset o (the coordinates'
// minima) plus a sparse part, and squared distances are
// ‖x‖² − 2x·o − 2x·(a_j − o) + ‖a_j‖² over the sparse part's nonzero
// coordinates (the simplex anchors (g + 1/K)/(N+1) have at most N).
type anchorSet[T Float] struct {
	a     []T // [B, E]
	k     T   // −1/τ
	e     int
	off   []T   // o [E]
	norm  []T   // ‖a_j‖²
	start []int // the nonzero coordinates of a_j − o are idx, val[start[j]:start[j+1]]
	idx   []int
	val   []T
	// under is the exponent below which e^x rounds to 0 in T: the
	// assignment is exactly 0 there, and the loops skip it.
	under float64
	// For anchors on a lattice, the assignment needs E exponentials per
	// point instead of B: for equally spaced 1-D anchors a_j = a_0 + j·h
	// (h = step > 0) the ratio of neighbouring terms changes by the
	// constant factor gamma = e^{2kh²} from bin to bin; for anchors
	// a_j = o + u·g_j with g_j ≥ 0 integers of one sum (the simplex grid,
	// u = unit > 0), e^{z_j} ∝ A_j·Π_c F_c^{g_jc} with A_j = e^{k‖a_j‖²}
	// (relative to the largest, in lift) and F_c = e^{−2ku(x_c − max x)}.
	step, gamma float64
	unit        float64
	pow         []int // g_jc at the nonzero coordinates, beside idx
	maxPow      int
	lift        []float64
	index       latticeIndex // the anchors by coordinate, for sparseRow
}

// anchorSets holds the anchor sets built last: a loss passes the same
// anchors at every step, and at K = 1,000 (10⁶ anchor coordinates)
// preparing them costs more than a mini-batch's soft binning. An entry is
// reused only for anchors equal to its own copy, and the sets are read
// only, so the kernels share them across goroutines.
var anchorSets struct {
	sync.Mutex
	entries [anchorSetsKept]struct {
		sb  SoftBins // Anchors copied
		set any      // *anchorSet[T]
	}
	next int
}

const anchorSetsKept = 4

// newAnchorSet returns sb prepared in T, built once for each anchors.
func newAnchorSet[T Float](sb SoftBins) *anchorSet[T] {
	anchorSets.Lock()
	defer anchorSets.Unlock()
	for _, e := range anchorSets.entries {
		if s, ok := e.set.(*anchorSet[T]); ok && e.sb.Dim == sb.Dim && e.sb.Tau == sb.Tau && slices.Equal(e.sb.Anchors, sb.Anchors) {
			return s
		}
	}
	s := buildAnchorSet[T](sb)
	e := &anchorSets.entries[anchorSets.next]
	e.sb, e.set = SoftBins{Anchors: slices.Clone(sb.Anchors), Dim: sb.Dim, Tau: sb.Tau}, s
	anchorSets.next = (anchorSets.next + 1) % anchorSetsKept
	return s
}

func buildAnchorSet[T Float](sb SoftBins) *anchorSet[T] {
	e, b := sb.Dim, len(sb.Anchors)/sb.Dim
	s := &anchorSet[T]{a: make([]T, len(sb.Anchors)), k: T(-1 / sb.Tau), e: e, off: make([]T, e), norm: make([]T, b), start: make([]int, b+1), under: -746}
	if _, ok := any(s.k).(float32); ok {
		s.under = -104
	}
	o := make([]float64, e)
	for i := range o {
		o[i] = math.Inf(1)
		for j := range b {
			o[i] = min(o[i], sb.Anchors[j*e+i])
		}
		s.off[i] = T(o[i])
	}
	for j := range b {
		for i, v := range sb.Anchors[j*e : (j+1)*e] {
			s.a[j*e+i] = T(v)
			s.norm[j] += T(v) * T(v)
			if d := v - o[i]; d != 0 {
				s.idx, s.val = append(s.idx, i), append(s.val, T(d))
			}
		}
		s.start[j+1] = len(s.idx)
	}
	if e == 1 && b > 1 {
		a, h := sb.Anchors, (sb.Anchors[b-1]-sb.Anchors[0])/float64(b-1)
		s.step, s.gamma = h, math.Exp(2*float64(s.k)*h*h)
		for j, v := range a {
			if !(h > 0) || math.Abs(v-(a[0]+float64(j)*h)) > 1e-12*max(1, math.Abs(v)) {
				s.step = 0
			}
		}
	}
	if e > 1 {
		s.lattice(sb, o)
	}
	return s
}

// lattice sets unit, pow and lift when sb's anchors are o + u·g_j for
// integer vectors g_j ≥ 0 (entries at most 64) of one sum.
func (s *anchorSet[T]) lattice(sb SoftBins, o []float64) {
	u := math.Inf(1)
	for j := range len(s.norm) {
		for t := s.start[j]; t < s.start[j+1]; t++ {
			u = min(u, sb.Anchors[j*s.e+s.idx[t]]-o[s.idx[t]])
		}
	}
	if math.IsInf(u, 1) || !(u > 0) {
		return
	}
	b, e := len(s.norm), s.e
	pow := make([]int, len(s.idx))
	sum, minNorm := -1, math.Inf(1)
	for j := range b {
		total := 0
		for t := s.start[j]; t < s.start[j+1]; t++ {
			d := sb.Anchors[j*e+s.idx[t]] - o[s.idx[t]]
			g := math.Round(d / u)
			if g < 1 || g > 64 || math.Abs(d-g*u) > 1e-9*u {
				return
			}
			pow[t] = int(g)
			total += int(g)
		}
		if sum >= 0 && total != sum {
			return
		}
		sum = total
		minNorm = min(minNorm, float64(s.norm[j]))
	}
	s.unit, s.pow, s.lift = u, pow, make([]float64, b)
	for j := range b {
		s.lift[j] = math.Exp(float64(s.k) * (float64(s.norm[j]) - minNorm))
		for t := s.start[j]; t < s.start[j+1]; t++ {
			s.maxPow = max(s.maxPow, pow[t])
		}
	}
	s.buildLatticeIndex()
}

// scratch is a buffer for row, one per goroutine.
func (s *anchorSet[T]) scratch() []float64 {
	return make([]float64, s.e*(s.maxPow+1)+len(s.norm))
}

// row sets w[j] = softmax_j(k·‖x − a_j‖²) for one point x: scaled
// distances, shifted by their maximum, exponentiated and normalised (or
// through the lattice's ratios, when the anchors are on one). tmp is
// s.scratch().
func (s *anchorSet[T]) row(w, x []T, tmp []float64) {
	switch {
	case s.step > 0:
		if xv := float64(x[0]); !math.IsNaN(xv) && !math.IsInf(xv, 0) {
			s.uniformRow(w, xv, tmp[:len(w)])
			return
		}
	case s.unit > 0:
		if s.latticeRow(w, x, tmp) {
			return
		}
	}
	m := math.Inf(-1)
	if s.e == 1 {
		for j, av := range s.a {
			d := x[0] - av
			w[j] = T(d*d) * s.k
		}
	} else {
		var xx, xo T
		for i, v := range x {
			xx += T(v * v)
			xo += T(v * s.off[i])
		}
		for j := range w {
			dot := xo
			for t := s.start[j]; t < s.start[j+1]; t++ {
				dot += T(s.val[t] * x[s.idx[t]])
			}
			w[j] = (xx - 2*dot + s.norm[j]) * s.k
		}
	}
	for _, z := range w {
		if z := float64(z); z > m || z != z {
			m = z
		}
	}
	if math.IsInf(m, 0) || m != m {
		m = 0
	}
	var sum T
	for j, z := range w {
		v := float64(z - T(m))
		if v < s.under {
			w[j] = 0
			continue
		}
		ev := T(math.Exp(v))
		w[j] = ev
		sum += ev
	}
	for j, v := range w {
		if v != 0 {
			w[j] = v / sum
		}
	}
}

// uniformRow is row for equally spaced 1-D anchors: from the nearest
// anchor j* (where e^{z_j − z_j*} = 1), the terms above and below follow by
// the ratios r_{j+1} = r_j·gamma, in float64.
func (s *anchorSet[T]) uniformRow(w []T, x float64, t []float64) {
	b, h, k := len(w), s.step, float64(s.k)
	a0 := float64(s.a[0])
	c := min(max(math.Round((x-a0)/h), 0), float64(b-1))
	j0 := int(c)
	u := x - (a0 + c*h) // x − a_j*
	t[j0] = 1
	sum := 1.0
	// The first ratios up and down multiply to gamma; inside the anchors'
	// range (|u| ≤ h/2) neither underflows, so one exponential gives both.
	up, down := 0.0, 0.0
	if j0 < b-1 {
		up = math.Exp(k * (h*h - 2*h*u))
	}
	if j0 > 0 {
		if up > 0 {
			down = s.gamma / up
		}
		if !(down > 0) || math.IsInf(down, 0) {
			down = math.Exp(k * (h*h + 2*h*u))
		}
	}
	e, r := 1.0, up
	for j := j0 + 1; j < b; j++ {
		e *= r
		r *= s.gamma
		t[j] = e
		sum += e
	}
	e, r = 1, down
	for j := j0 - 1; j >= 0; j-- {
		e *= r
		r *= s.gamma
		t[j] = e
		sum += e
	}
	inv := 1 / sum
	for j, v := range t {
		w[j] = T(v * inv)
	}
}

// expUnderflow is the argument below which math.Exp returns 0.
const expUnderflow = -7.45133219101941108420e+02

// latticeRow is row for lattice anchors, in float64; it reports false,
// leaving w to the general path, when x is not finite or the terms
// underflow.
func (s *anchorSet[T]) latticeRow(w, x []T, tmp []float64) bool {
	xmax := math.Inf(-1)
	for _, v := range x {
		xmax = max(xmax, float64(v))
	}
	if math.IsInf(xmax, 0) || math.IsNaN(xmax) {
		return false
	}
	np := s.maxPow + 1
	pw, t := tmp[:s.e*np], tmp[s.e*np:] // F_c^p and the terms
	c := -2 * float64(s.k) * s.unit
	for i, v := range x {
		f := 0.0 // e^a for a below expUnderflow, without the call
		if a := c * (float64(v) - xmax); !(a < expUnderflow) {
			f = math.Exp(a)
		}
		row := pw[i*np : (i+1)*np]
		row[0] = 1
		for p := 1; p < np; p++ {
			row[p] = row[p-1] * f
		}
	}
	sum := 0.0
	for j := range w {
		v := s.lift[j]
		for q := s.start[j]; q < s.start[j+1]; q++ {
			v *= pw[s.idx[q]*np+s.pow[q]]
		}
		t[j] = v
		sum += v
	}
	if !(sum > 1e-300) || math.IsInf(sum, 0) {
		return false
	}
	inv := 1 / sum
	for j, v := range t {
		w[j] = T(v * inv)
	}
	return true
}

// rowBackward adds to dx the gradient of one point's assignment w for the
// output gradient dw (read only where w ≠ 0): dz_j = w_j·(dw_j − Σ_r w_r·dw_r)
// and dx = 2k·Σ_j dz_j·(x − a_j), over the anchors with w_j ≠ 0.
func (s *anchorSet[T]) rowBackward(dx, dw, w, x []T) {
	var dot T
	for j, v := range w {
		if v != 0 {
			dot += v * dw[j]
		}
	}
	k2 := 2 * s.k
	if s.e == 1 { // in a register: a chain through memory costs more
		var acc T
		for j, v := range w {
			if v != 0 {
				acc += k2 * v * (dw[j] - dot) * (x[0] - s.a[j])
			}
		}
		dx[0] += acc
		return
	}
	for j, v := range w {
		if v != 0 {
			s.rowBackAt(dx, k2*v*(dw[j]-dot), j, x)
		}
	}
}

// rowBackAt adds dz·(x − a_j) to dx.
func (s *anchorSet[T]) rowBackAt(dx []T, dz T, j int, x []T) {
	for i, a := range s.a[j*s.e : (j+1)*s.e] {
		dx[i] += dz * (x[i] - a)
	}
}

// addStats adds one sample's statistics to acc [B, D+2] for its
// assignment w [B] and value p [D].
func addStats[T Float](acc []float64, w, p []T) {
	pp := sumSquares(p)
	for j, wv := range w {
		if wv != 0 {
			addStatsAt(acc, j, wv, p, pp)
		}
	}
}

// addStatsAt adds w·[1, p, pp] to bin j's statistics in acc [B, D+2].
func addStatsAt[T Float](acc []float64, j int, w T, p []T, pp T) {
	d := len(p)
	s := acc[j*(d+2) : (j+1)*(d+2)]
	s[0] += float64(w)
	for c, v := range p {
		s[1+c] += float64(T(w * v))
	}
	s[d+1] += float64(T(w * pp))
}

// sumSquares is ‖p‖², summed in T.
func sumSquares[T Float](p []T) T {
	var pp T
	for _, v := range p {
		pp += T(v * v)
	}
	return pp
}

// statsRowBackward sets, for one sample, dw [B] and dp [D] from the gradient
// ds [B, D+2] of the statistics: dw_j = dn_j + dm_j·p + dq_j·‖p‖² and
// dp = Σ_j w_j·(dm_j + 2·dq_j·p). Unless all, it leaves dw_j unset where
// w_j = 0.
func statsRowBackward[T Float](dw, dp, w, p, ds []T, all bool) {
	d := len(p)
	pp := sumSquares(p)
	if d == 1 { // in registers
		p0 := p[0]
		var acc T
		for j, wv := range w {
			if wv == 0 && !all {
				continue
			}
			s := ds[j*3 : j*3+3]
			dw[j] = s[0] + s[2]*pp + s[1]*p0
			acc += wv * (s[1] + 2*s[2]*p0)
		}
		dp[0] += acc
		return
	}
	for j, wv := range w {
		if wv != 0 || all {
			dw[j] = statsBackAt(dp, ds, j, wv, p, pp)
		}
	}
}

// statsBackAt adds bin j's part w·(dm_j + 2·dq_j·p) of dp and returns
// dw_j = dn_j + dm_j·p + dq_j·pp, for the gradient ds [B, D+2].
func statsBackAt[T Float](dp, ds []T, j int, w T, p []T, pp T) T {
	d := len(p)
	s := ds[j*(d+2) : (j+1)*(d+2)]
	v := s[0] + s[d+1]*pp
	for c, pv := range p {
		v += s[1+c] * pv
		dp[c] += w * (s[1+c] + 2*s[d+1]*pv)
	}
	return v
}

// The partition of the samples for the sums: blocks of at least
// statsBlockRows samples, at most statsBlocks of them.
const (
	statsBlockRows = 1024
	statsBlocks    = 64
)

// blockSums runs body over a partition of the n samples that depends only
// on n and align (each block but the last a multiple of align samples),
// each block adding into its own zeroed float64 partial sums of len(out)
// values, and writes their sum, taken in block order, to out.
func blockSums[T Float](n, cost, align int, out []T, body func(acc []float64, lo, hi int)) {
	blocks := min(max(n/statsBlockRows, 1), statsBlocks)
	rows := ((n+blocks-1)/blocks + align - 1) / align * align
	if rows > 0 {
		blocks = (n + rows - 1) / rows
	}
	slots := len(out)
	buf := getScratch[float64](blocks * slots)
	defer putScratch(buf)
	part := *buf
	parallelFor(blocks, rows*cost, func(lo, hi int) {
		for bk := lo; bk < hi; bk++ {
			acc := part[bk*slots : (bk+1)*slots]
			clear(acc)
			body(acc, bk*rows, min((bk+1)*rows, n))
		}
	})
	// Block 0's sums plus each further block's in turn, as the sum from 0
	// in block order, over ranges of the slots in parallel.
	parallelFor(slots, 2*blocks, func(lo, hi int) {
		for bk := 1; bk < blocks; bk++ {
			moveRows(part[lo:hi], part[bk*slots+lo:bk*slots+hi], 1, hi-lo, 0, 0, true)
		}
		for s, v := range part[lo:hi] {
			out[lo+s] = T(v)
		}
	})
}
