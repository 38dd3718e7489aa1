package tensor

import (
	"math"
	"slices"
	"sync"
)

// The soft-binning kernels of the Expectation Consistency Loss. Points x
// [N, G, E] (G groups of one E-dimensional point per sample) are softly
// assigned to B anchors, ω [N, G, B]; the bin statistics of values p
// [N, G, D] under ω are, per group g and bin j, packed in the last axis of
// [G, B, D+2]: the soft count n = Σ_i ω_igj, the weighted sums
// m = Σ_i ω_igj·p_ig (D values) and the weighted squared norm
// q = Σ_i ω_igj·‖p_ig‖². SoftBinStats fuses the two: it never holds ω, and
// its backward recomputes each sample's ω on the fly, so the extra memory is
// O(G·B·D) beyond the inputs and their gradients.
//
// On the CPU the kernels run as fused loops over the samples on all cores;
// the sums go through float64 partial sums over a partition of the samples
// that depends only on N, so results do not depend on the number of cores.
// The composed versions (tensor ops) run on devices without a body and are
// the loops' tested reference.

// SoftBins are the attributes of the soft-binning kernels: B anchors a_j of
// dimension Dim, row-major in Anchors (B·Dim values), and the temperature
// Tau > 0 of ω_igj = softmax_j(−‖x_ig − a_j‖²/Tau).
type SoftBins struct {
	Anchors []float64
	Dim     int
	Tau     float64
}

// The soft-binning kernels, for backends to register bodies on.
var (
	SoftAssignKernel           = NewKernel[SoftBins]("soft_assign")             // in x; out ω
	SoftAssignBackwardKernel   = NewKernel[SoftBins]("soft_assign_backward")    // in dω, ω, x; out dx
	BinStatsKernel             = NewKernel[struct{}]("bin_stats")               // in ω, p; out stats
	BinStatsBackwardKernel     = NewKernel[struct{}]("bin_stats_backward")      // in dstats, ω, p; out dω, dp
	SoftBinStatsKernel         = NewKernel[SoftBins]("soft_bin_stats")          // in x, p; out stats
	SoftBinStatsBackwardKernel = NewKernel[SoftBins]("soft_bin_stats_backward") // in dstats, x, p; out dx, dp
)

func init() {
	registerCPU(SoftAssignKernel, softAssignCPU[float32], softAssignCPU[float64])
	registerCPU(SoftAssignBackwardKernel, softAssignBackwardCPU[float32], softAssignBackwardCPU[float64])
	registerCPU(BinStatsKernel, binStatsCPU[float32], binStatsCPU[float64])
	registerCPU(BinStatsBackwardKernel, binStatsBackwardCPU[float32], binStatsBackwardCPU[float64])
	registerCPU(SoftBinStatsKernel, softBinStatsCPU[float32], softBinStatsCPU[float64])
	registerCPU(SoftBinStatsBackwardKernel, softBinStatsBackwardCPU[float32], softBinStatsBackwardCPU[float64])
}

// SoftAssign is the soft assignment ω [N, G, B] of the points x [N, G, E]:
// squared distances summed in order, scaled by −1/τ, softmax shifted by the
// row maximum.
func SoftAssign[T Float](x *Tensor[T], sb SoftBins) *Tensor[T] {
	n, g, _, b := softShape("SoftAssign", x, sb)
	if body, ok := Lookup(SoftAssignKernel, x.Device()); ok {
		w := ZerosOn(x.Device(), n, g, b)
		body([]*Tensor[T]{w}, []*Tensor[T]{Contiguous(x)}, sb)
		return w
	}
	return softAssignComposed(x, sb)
}

// SoftAssignBackward is the gradient of SoftAssign with respect to x, for
// the output gradient dw and the assignment w it returned.
func SoftAssignBackward[T Float](dw, w, x *Tensor[T], sb SoftBins) *Tensor[T] {
	n, g, _, b := softShape("SoftAssignBackward", x, sb)
	sameShape("SoftAssignBackward", []int{n, g, b}, dw, w)
	if body, ok := Lookup(SoftAssignBackwardKernel, x.Device()); ok {
		dx := ZerosOn(x.Device(), x.Shape()...)
		body([]*Tensor[T]{dx}, []*Tensor[T]{Contiguous(dw), Contiguous(w), Contiguous(x)}, sb)
		return dx
	}
	return softAssignBackwardComposed(dw, w, x, sb)
}

// BinStats is the statistics [G, B, D+2] (soft count, weighted sums,
// weighted squared norm) of p [N, G, D] under the assignment w [N, G, B].
func BinStats[T Float](w, p *Tensor[T]) *Tensor[T] {
	_, g, b, d := statsShape("BinStats", w.Shape()[2], w, p)
	if body, ok := Lookup(BinStatsKernel, w.Device()); ok {
		s := ZerosOn(w.Device(), g, b, d+2)
		body([]*Tensor[T]{s}, []*Tensor[T]{Contiguous(w), Contiguous(p)}, struct{}{})
		return s
	}
	return binStatsComposed(w, p)
}

// BinStatsBackward is the gradient of BinStats with respect to w and p, for
// the gradient ds [G, B, D+2] of the statistics.
func BinStatsBackward[T Float](ds, w, p *Tensor[T]) (dw, dp *Tensor[T]) {
	_, g, b, d := statsShape("BinStatsBackward", w.Shape()[2], w, p)
	sameShape("BinStatsBackward", []int{g, b, d + 2}, ds)
	if body, ok := Lookup(BinStatsBackwardKernel, w.Device()); ok {
		dw, dp = ZerosOn(w.Device(), w.Shape()...), ZerosOn(w.Device(), p.Shape()...)
		body([]*Tensor[T]{dw, dp}, []*Tensor[T]{Contiguous(ds), Contiguous(w), Contiguous(p)}, struct{}{})
		return dw, dp
	}
	return binStatsBackwardComposed(ds, w, p)
}

// SoftBinStats is BinStats(SoftAssign(x, sb), p) [G, B, D+2] without
// holding the assignment.
func SoftBinStats[T Float](x, p *Tensor[T], sb SoftBins) *Tensor[T] {
	_, g, _, b := softShape("SoftBinStats", x, sb)
	_, _, _, d := statsShape("SoftBinStats", b, x, p)
	if body, ok := Lookup(SoftBinStatsKernel, x.Device()); ok {
		s := ZerosOn(x.Device(), g, b, d+2)
		body([]*Tensor[T]{s}, []*Tensor[T]{Contiguous(x), Contiguous(p)}, sb)
		return s
	}
	return BinStats(SoftAssign(x, sb), p)
}

// SoftBinStatsBackward is the gradient of SoftBinStats with respect to x and
// p, for the gradient ds [G, B, D+2] of the statistics.
func SoftBinStatsBackward[T Float](ds, x, p *Tensor[T], sb SoftBins) (dx, dp *Tensor[T]) {
	_, g, _, b := softShape("SoftBinStatsBackward", x, sb)
	_, _, _, d := statsShape("SoftBinStatsBackward", b, x, p)
	sameShape("SoftBinStatsBackward", []int{g, b, d + 2}, ds)
	if body, ok := Lookup(SoftBinStatsBackwardKernel, x.Device()); ok {
		dx, dp = ZerosOn(x.Device(), x.Shape()...), ZerosOn(x.Device(), p.Shape()...)
		body([]*Tensor[T]{dx, dp}, []*Tensor[T]{Contiguous(ds), Contiguous(x), Contiguous(p)}, sb)
		return dx, dp
	}
	w := SoftAssign(x, sb)
	dw, dp := BinStatsBackward(ds, w, p)
	return SoftAssignBackward(dw, w, x, sb), dp
}

// softShape checks x [N, G, E] against sb and returns N, G, E and B.
func softShape[T Float](op string, x *Tensor[T], sb SoftBins) (n, g, e, b int) {
	sh := x.Shape()
	if sb.Dim < 1 || len(sb.Anchors) == 0 || len(sb.Anchors)%sb.Dim != 0 {
		panic(shapeError(op, [][]int{{len(sb.Anchors)}}, "%d anchor values of dimension %d", len(sb.Anchors), sb.Dim))
	}
	if len(sh) != 3 || sh[2] != sb.Dim {
		panic(shapeError(op, [][]int{sh}, "points %v, want [N, G, %d]", sh, sb.Dim))
	}
	if !(sb.Tau > 0) || math.IsInf(sb.Tau, 0) {
		panic(argumentError(op, "temperature %v must be positive and finite", sb.Tau))
	}
	return sh[0], sh[1], sh[2], len(sb.Anchors) / sb.Dim
}

// statsShape checks a [N, G, ·] tensor (the assignment or the points)
// against p [N, G, D], with b bins, and returns N, G, B and D.
func statsShape[T Float](op string, b int, w, p *Tensor[T]) (n, g, bins, d int) {
	ws, ps := w.Shape(), p.Shape()
	if len(ws) != 3 || len(ps) != 3 || ws[0] != ps[0] || ws[1] != ps[1] {
		panic(shapeError(op, [][]int{ws, ps}, "%v and values %v, want [N, G, ·] and [N, G, D]", ws, ps))
	}
	sameDevice(op, w, p)
	return ps[0], ps[1], b, ps[2]
}

func sameShape[T Float](op string, want []int, ts ...*Tensor[T]) {
	for _, t := range ts {
		if !slices.Equal(t.Shape(), want) {
			panic(shapeError(op, [][]int{t.Shape(), want}, "gradient or assignment of shape %v, want %v", t.Shape(), want))
		}
	}
}

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
}

func newAnchorSet[T Float](sb SoftBins) *anchorSet[T] {
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
		f := math.Exp(c * (float64(v) - xmax))
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
		if v == 0 {
			continue
		}
		dz := k2 * v * (dw[j] - dot)
		for i, a := range s.a[j*s.e : (j+1)*s.e] {
			dx[i] += dz * (x[i] - a)
		}
	}
}

// addStats adds one sample's statistics to acc [B, D+2] for its
// assignment w [B] and value p [D].
func addStats[T Float](acc []float64, w, p []T) {
	d := len(p)
	var pp T
	for _, v := range p {
		pp += T(v * v)
	}
	for j, wv := range w {
		if wv == 0 {
			continue
		}
		s := acc[j*(d+2) : (j+1)*(d+2)]
		s[0] += float64(wv)
		for c, v := range p {
			s[1+c] += float64(T(wv * v))
		}
		s[d+1] += float64(T(wv * pp))
	}
}

// statsRowBackward sets, for one sample, dw [B] and dp [D] from the gradient
// ds [B, D+2] of the statistics: dw_j = dn_j + dm_j·p + dq_j·‖p‖² and
// dp = Σ_j w_j·(dm_j + 2·dq_j·p). Unless all, it leaves dw_j unset where
// w_j = 0.
func statsRowBackward[T Float](dw, dp, w, p, ds []T, all bool) {
	d := len(p)
	var pp T
	for _, v := range p {
		pp += v * v
	}
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
		if wv == 0 && !all {
			continue
		}
		s := ds[j*(d+2) : (j+1)*(d+2)]
		v := s[0] + s[d+1]*pp
		for c, pv := range p {
			v += s[1+c] * pv
			dp[c] += wv * (s[1+c] + 2*s[d+1]*pv)
		}
		dw[j] = v
	}
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
	part := make([]float64, blocks*slots)
	parallelFor(blocks, rows*cost, func(lo, hi int) {
		for bk := lo; bk < hi; bk++ {
			body(part[bk*slots:(bk+1)*slots], bk*rows, min((bk+1)*rows, n))
		}
	})
	for s := range out {
		t := 0.0
		for bk := range blocks {
			t += part[bk*slots+s]
		}
		out[s] = T(t)
	}
}

// soft1D runs the soft binning of 1-D float32 points and values (E = D = 1:
// top-label and class-wise) through the vector kernels of softbin_amd64.s,
// 16 samples per vector, in rounds of 16 rows of the G groups (see there).
// The kernels sum each lane in float32 over at most soft1DRounds rounds,
// then fold the lanes into the float64 partial sums.
type soft1D struct {
	a    []float32
	c    [softConsts]float32
	g, b int
	// group[v·16 + l] is the group of lane l of a round's vector v.
	group []int
}

// softConsts is the length of soft1D's constant table: k = −1/τ, log2 e,
// ln 2 in two parts (Cephes' C1, C2), the six coefficients of Cephes'
// expf polynomial, 1, and −104, below which e^x is 0 in float32; then,
// for equally spaced anchors a_j = a_0 + j·h (the kernels' recurrence,
// see PRELUDE in softbin_amd64.s): a_0, 1/h, h, B − 1, kh², −2kh,
// γ = e^{2kh²}, the lower bound −40 of the exponents (+∞ when the anchors
// are not equally spaced: the upper bound is then unused), their upper
// bound 40, a_{B−1} and (B − 2)·2kh².
const softConsts = 23

// softConstants is the constant table for k = −1/τ, with no equally spaced
// anchors.
func softConstants(k float32) [softConsts]float32 {
	return [softConsts]float32{k, math.Log2E, 0.693359375, -2.12194440e-4,
		1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1,
		1, -104,
		0, 0, 0, 0, 0, 0, 0, float32(math.Inf(1)), 80, 0, 0}
}

// soft1DRounds bounds the rounds summed in float32 before a fold.
const soft1DRounds = 128

// newSoft1D returns the vector kernels for as, g groups and values of
// dimension d, or nil where they do not apply (no AVX-512, float64, points
// or values of more than one dimension).
func newSoft1D[T Float](as *anchorSet[T], g, d int) *soft1D {
	k, ok := any(as.k).(float32)
	if !softAsm || !ok || as.e != 1 || d != 1 {
		return nil
	}
	v := &soft1D{a: reinterpret[float32](as.a), g: g, b: len(as.a), group: make([]int, 16*g)}
	v.c = softConstants(k)
	if h, b := as.step, len(as.a); h > 0 {
		kf, hf := float64(k), float64(float32(h))
		v.c[12], v.c[13], v.c[14], v.c[15] = v.a[0], float32(1/h), float32(h), float32(b-1)
		v.c[16], v.c[17], v.c[18] = float32(kf*hf*hf), float32(-2*kf*hf), float32(math.Exp(2*kf*hf*hf))
		v.c[19], v.c[20], v.c[21], v.c[22] = -40, 40, v.a[b-1], float32(float64(b-2)*2*kf*hf*hf)
	}
	for i := range v.group {
		v.group[i] = i % g
	}
	return v
}

// softVec is a vector kernel of the soft binning (soft1D, softCanon), 16
// samples per round.
type softVec interface {
	// stats adds the statistics of rows [lo, hi) to acc, rows the scalar
	// loop for a range of rows, and returns the first row it left (fewer
	// than 16 before hi).
	stats(acc []float64, xs, ps []float32, lo, hi int, rows func(lo, hi int)) int
	// grad returns the loop that adds to (or, canonical, sets) dx and dp,
	// zero before, the gradients of rows [lo, hi) for the statistics'
	// gradient ds, likewise, or nil when ds is not finite (a kernel would
	// spread a NaN over bins the scalar loop skips).
	grad(ds []float32) func(dx, dp, xs, ps []float32, lo, hi int, rows func(lo, hi int)) int
}

// newSoftVec returns the vector kernel for as, g groups and values of
// dimension d, or nil where none applies.
func newSoftVec[T Float](as *anchorSet[T], g, d int) softVec {
	if v := newSoft1D(as, g, d); v != nil {
		return v
	}
	if v := newSoftCanon(as, g, d); v != nil {
		return v
	}
	return nil
}

// vecRounds runs kernel (which takes rounds of 16 rows from row lo and
// returns the rounds done) over the whole rounds of rows [lo, hi), at most
// most rounds a call, and rows on each round it stops before; it returns
// the first row left. An assembly call cannot be preempted, and the
// collector's stop-the-world waits for it (while the other cores idle), so
// callers keep most at soft1DRounds (about 0.1–1 ms of work): a backward
// pass over 5·10⁶ canonical K = 10 rows in one call held a mark
// termination for 191 ms (GODEBUG=gctrace=1), at most 1.5 ms in calls of
// soft1DRounds.
func vecRounds(lo, hi, most int, kernel func(lo, rounds int) int, rows func(lo, hi int)) int {
	for hi-lo >= 16 {
		rounds := min((hi-lo)/16, most)
		done := kernel(lo, rounds)
		lo += 16 * done
		if done < rounds {
			rows(lo, lo+16)
			lo += 16
		}
	}
	return lo
}

// scratch returns a pooled buffer of at least n float32 values, and its
// release.
func scratch(n int) ([]float32, func()) {
	buf := soft1DScratch.Get().(*[]float32)
	if cap(*buf) < n {
		*buf = make([]float32, n)
	}
	return (*buf)[:n], func() { soft1DScratch.Put(buf) }
}

func (v *soft1D) stats(acc []float64, xs, ps []float32, lo, hi int, rows func(lo, hi int)) int {
	size := v.g * v.b * 3 * 16
	buf, release := scratch(size + v.b*16)
	defer release()
	lanes, tmp := buf[:size], buf[size:]
	return vecRounds(lo, hi, soft1DRounds, func(lo, rounds int) int {
		clear(lanes)
		done := softBinFwd16(&xs[lo*v.g], &ps[lo*v.g], rounds, v.g, &v.a[0], v.b, &v.c, &lanes[0], &tmp[0])
		v.fold(acc, lanes)
		return done
	}, rows)
}

// soft1DScratch holds the vector kernels' scratch between calls.
var soft1DScratch = sync.Pool{New: func() any { return new([]float32) }}

// fold adds the per-lane sums [G][B·3][16] to acc [G, B·3].
func (v *soft1D) fold(acc []float64, lanes []float32) {
	bc := 3 * v.b
	for vec := range v.g {
		groups := v.group[vec*16 : vec*16+16]
		for i := range bc {
			s := lanes[(vec*bc+i)*16 : (vec*bc+i)*16+16]
			for l, gg := range groups {
				acc[gg*bc+i] += float64(s[l])
			}
		}
	}
}

func (v *soft1D) grad(ds []float32) func(dx, dp, xs, ps []float32, lo, hi int, rows func(lo, hi int)) int {
	if !finite(ds) {
		return nil
	}
	tab := v.table(ds)
	return func(dx, dp, xs, ps []float32, lo, hi int, rows func(lo, hi int)) int {
		return vecRounds(lo, hi, soft1DRounds, func(lo, rounds int) int {
			o := lo * v.g
			return softBinBwd16(&dx[o], &dp[o], &xs[o], &ps[o], rounds, v.g, &v.a[0], v.b, &v.c, &tab[0])
		}, rows)
	}
}

// finite reports whether every value of s is finite.
func finite(s []float32) bool {
	for _, v := range s {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return false
		}
	}
	return true
}

// table lays out the gradient ds [G, B, 3] of the statistics per lane of a
// round's vectors, with the anchors, [G][B][4][16] (dn, dm, dq, a), for
// the backward kernel.
func (v *soft1D) table(ds []float32) []float32 {
	tab := make([]float32, v.g*v.b*4*16)
	for vec := range v.g {
		groups := v.group[vec*16 : vec*16+16]
		for j, a := range v.a {
			t := tab[(vec*v.b+j)*4*16 : (vec*v.b+j+1)*4*16]
			for l, gg := range groups {
				d := ds[(gg*v.b+j)*3 : (gg*v.b+j)*3+3]
				t[l], t[16+l], t[32+l], t[48+l] = d[0], d[1], d[2], a
			}
		}
	}
	return tab
}

// softCanon runs the soft binning of float32 points of E ≥ 2 dimensions in
// one group (canonical) through the vector kernels of softbin_amd64.s, 16
// samples per round (see there), summing each lane in float32 over at most
// soft1DRounds rounds before folding the lanes into the float64 partial
// sums.
type softCanon struct {
	e, d, b int
	c       [softConsts]float32
	// cf holds per anchor k‖a_j‖², then −2k(a_j − o)_c at its nonzero
	// coordinates c; nz their count, then 64c for each.
	cf  []float32
	nz  []int32
	off []float32 // o
	// trans holds the kernels' tables for the transposition of a round
	// between its rows and coordinate vectors: x, then p to coordinates,
	// x, then p back to rows (transTable).
	trans []int32
	// For lattice anchors (CLATTICE in softbin_amd64.s), lat holds
	// γ = −2ku, the bound (−87 − ln min lift)/Σ_c g_jc and lift_j, pw
	// the largest power G, then per anchor the count of its powers
	// g_jc and their offsets 64(cG + g_jc − 1); γ = 0 otherwise. powers
	// is E·G, the vectors of the powers' table.
	lat    []float32
	pw     []int32
	powers int
}

// newSoftCanon returns the vector kernels for as, g groups and values of
// dimension d, or nil where they do not apply (no AVX-512, float64, more
// than one group, 1-D points, no values).
func newSoftCanon[T Float](as *anchorSet[T], g, d int) *softCanon {
	k, ok := any(as.k).(float32)
	if !softAsm || !ok || g != 1 || as.e < 2 || d < 1 {
		return nil
	}
	v := &softCanon{e: as.e, d: d, b: len(as.norm), c: softConstants(k), off: reinterpret[float32](as.off)}
	v.cf, v.nz = make([]float32, 0, v.b+len(as.idx)), make([]int32, 0, v.b+len(as.idx))
	for j := range v.b {
		v.cf = append(v.cf, k*float32(as.norm[j]))
		v.nz = append(v.nz, int32(as.start[j+1]-as.start[j]))
		for t := as.start[j]; t < as.start[j+1]; t++ {
			v.cf = append(v.cf, -2*k*float32(as.val[t]))
			v.nz = append(v.nz, int32(64*as.idx[t]))
		}
	}
	v.trans = slices.Concat(transTable(v.e, false), transTable(d, false), transTable(v.e, true), transTable(d, true))
	v.lattice(any(as).(*anchorSet[float32]))
	return v
}

// lattice sets lat, pw and powers for the anchors of as, where they are
// on a lattice whose terms stay above e^{−87} for some points.
func (v *softCanon) lattice(as *anchorSet[float32]) {
	v.lat, v.pw = []float32{0}, []int32{0}
	if !(as.unit > 0) {
		return
	}
	sum, low := 0, slices.Min(as.lift)
	for t := as.start[0]; t < as.start[1]; t++ {
		sum += as.pow[t]
	}
	bound := (-87 - math.Log(low)) / float64(sum)
	if !(bound < 0) {
		return
	}
	g := as.maxPow
	v.lat = append(make([]float32, 0, 2+len(as.lift)), -2*as.k*float32(as.unit), float32(bound))
	v.pw = append(make([]int32, 0, 1+len(as.lift)+len(as.idx)), int32(g))
	for j, l := range as.lift {
		v.lat = append(v.lat, float32(l))
		v.pw = append(v.pw, int32(as.start[j+1]-as.start[j]))
		for t := as.start[j]; t < as.start[j+1]; t++ {
			v.pw = append(v.pw, int32(64*(as.idx[t]*g+as.pow[t]-1)))
		}
	}
	v.powers = as.e * g
}

// transTable is the table of CTRANS (softbin_amd64.s) for a round of 16
// rows of n coordinates, from rows to coordinate vectors (or back, with
// toRows): the gather (scatter) indices l·n, then for each output vector o
// an index and a source vector, its lane m being lane index[m] of the
// input vector source[m]. Row l's coordinate c is at the flat position
// f = l·n + c of the rows: lane f mod 16 of row vector ⌊f/16⌋, and lane l
// of coordinate vector c.
func transTable(n int, toRows bool) []int32 {
	t := make([]int32, 16+32*n)
	for l := range 16 {
		t[l] = int32(l * n)
	}
	for o := range n {
		index, source := t[16+32*o:32+32*o], t[32+32*o:48+32*o]
		for m := range 16 {
			f := m*n + o
			index[m], source[m] = int32(f%16), int32(f/16)
			if toRows {
				f = o*16 + m
				index[m], source[m] = int32(f/n), int32(f%n)
			}
		}
	}
	return t
}

func (v *softCanon) stats(acc []float64, xs, ps []float32, lo, hi int, rows func(lo, hi int)) int {
	size := v.b * (v.d + 2) * 16
	buf, release := scratch(size + (4*(v.e+v.d+2+v.b)+v.powers)*16)
	defer release()
	lanes, tmp := buf[:size], buf[size:]
	return vecRounds(lo, hi, soft1DRounds, func(lo, rounds int) int {
		clear(lanes)
		done := softCanonFwd16(&xs[lo*v.e], &ps[lo*v.d], rounds, v.e, v.d, &v.cf[0], &v.nz[0], v.b, &v.c, &v.trans[0], &lanes[0], &tmp[0], &v.lat[0], &v.pw[0])
		for i := range acc {
			for _, s := range lanes[i*16 : i*16+16] {
				acc[i] += float64(s)
			}
		}
		return done
	}, rows)
}

func (v *softCanon) grad(ds []float32) func(dx, dp, xs, ps []float32, lo, hi int, rows func(lo, hi int)) int {
	if !finite(ds) {
		return nil
	}
	tab := v.table(ds)
	return func(dx, dp, xs, ps []float32, lo, hi int, rows func(lo, hi int)) int {
		tmp, release := scratch((2*v.e + v.d + 2 + 2*roundUp(v.b, 8) + roundUp(v.d+2, 8) + v.powers) * 16)
		defer release()
		return vecRounds(lo, hi, soft1DRounds, func(lo, rounds int) int {
			e, d := lo*v.e, lo*v.d
			return softCanonBwd16(&dx[e], &dp[d], &xs[e], &ps[d], rounds, v.e, v.d, &v.cf[0], &v.nz[0], v.b, &v.c, &v.trans[0], &tab[0], &v.off[0], &tmp[0], &v.lat[0], &v.pw[0])
		}, rows)
	}
}

// table lays out the statistics' gradient ds [B, D+2] for the backward
// kernel, zero-padded: by blocks of 8 columns, [⌈(D+2)/8⌉][B][8], then by
// blocks of 8 anchors, [⌈B/8⌉][D+2][8].
func (v *softCanon) table(ds []float32) []float32 {
	c := v.d + 2
	second := roundUp(c, 8) * v.b
	tab := make([]float32, second+roundUp(v.b, 8)*c)
	for j := range v.b {
		for i, s := range ds[j*c : (j+1)*c] {
			tab[(i/8*v.b+j)*8+i%8] = s
			tab[second+(j/8*c+i)*8+j%8] = s
		}
	}
	return tab
}

// The CPU bodies.

func softAssignCPU[T Float](out, in []*Tensor[T], sb SoftBins) {
	xs, ws := HostData(in[0]), HostData(out[0])
	as := newAnchorSet[T](sb)
	e, b := sb.Dim, len(as.norm)
	parallelFor(len(xs)/e, b*(2*e+8), func(lo, hi int) {
		tmp := as.scratch()
		for r := lo; r < hi; r++ {
			as.row(ws[r*b:(r+1)*b], xs[r*e:(r+1)*e], tmp)
		}
	})
}

func softAssignBackwardCPU[T Float](out, in []*Tensor[T], sb SoftBins) {
	dxs, dws, ws, xs := HostData(out[0]), HostData(in[0]), HostData(in[1]), HostData(in[2])
	as := newAnchorSet[T](sb)
	e, b := sb.Dim, len(as.norm)
	parallelFor(len(xs)/e, b*(2*e+4), func(lo, hi int) {
		for r := lo; r < hi; r++ {
			as.rowBackward(dxs[r*e:(r+1)*e], dws[r*b:(r+1)*b], ws[r*b:(r+1)*b], xs[r*e:(r+1)*e])
		}
	})
}

func binStatsCPU[T Float](out, in []*Tensor[T], _ struct{}) {
	w, p := in[0], in[1]
	n, g, b, d := w.Shape()[0], w.Shape()[1], w.Shape()[2], p.Shape()[2]
	ws, ps := HostData(w), HostData(p)
	blockSums(n, g*b*(d+3), 1, HostData(out[0]), func(acc []float64, lo, hi int) {
		for r := lo * g; r < hi*g; r++ {
			gg := r % g
			addStats(acc[gg*b*(d+2):(gg+1)*b*(d+2)], ws[r*b:(r+1)*b], ps[r*d:(r+1)*d])
		}
	})
}

func binStatsBackwardCPU[T Float](out, in []*Tensor[T], _ struct{}) {
	dws, dps := HostData(out[0]), HostData(out[1])
	ds, w, p := HostData(in[0]), in[1], in[2]
	g, b, d := w.Shape()[1], w.Shape()[2], p.Shape()[2]
	ws, ps := HostData(w), HostData(p)
	parallelFor(w.Shape()[0]*g, b*(2*d+4), func(lo, hi int) {
		for r := lo; r < hi; r++ {
			gg := r % g
			statsRowBackward(dws[r*b:(r+1)*b], dps[r*d:(r+1)*d], ws[r*b:(r+1)*b], ps[r*d:(r+1)*d], ds[gg*b*(d+2):(gg+1)*b*(d+2)], true)
		}
	})
}

func softBinStatsCPU[T Float](out, in []*Tensor[T], sb SoftBins) {
	x, p := in[0], in[1]
	n, g, d := x.Shape()[0], x.Shape()[1], p.Shape()[2]
	as := newAnchorSet[T](sb)
	e, b := sb.Dim, len(as.norm)
	xs, ps := HostData(x), HostData(p)
	vec, align := newSoftVec(as, g, d), 1
	if vec != nil {
		align = 16 // the kernels' rounds
	}
	blockSums(n, g*b*(2*e+d+10), align, HostData(out[0]), func(acc []float64, lo, hi int) {
		w, tmp := make([]T, b), as.scratch()
		rows := func(lo, hi int) {
			for r := lo * g; r < hi*g; r++ {
				gg := r % g
				as.row(w, xs[r*e:(r+1)*e], tmp)
				addStats(acc[gg*b*(d+2):(gg+1)*b*(d+2)], w, ps[r*d:(r+1)*d])
			}
		}
		if vec != nil {
			lo = vec.stats(acc, reinterpret[float32](xs), reinterpret[float32](ps), lo, hi, rows)
		}
		rows(lo, hi)
	})
}

func softBinStatsBackwardCPU[T Float](out, in []*Tensor[T], sb SoftBins) {
	dxs, dps := HostData(out[0]), HostData(out[1])
	ds, x, p := HostData(in[0]), in[1], in[2]
	g, d := x.Shape()[1], p.Shape()[2]
	as := newAnchorSet[T](sb)
	e, b := sb.Dim, len(as.norm)
	xs, ps := HostData(x), HostData(p)
	var grad func(dx, dp, xs, ps []float32, lo, hi int, rows func(lo, hi int)) int
	if vec := newSoftVec(as, g, d); vec != nil {
		grad = vec.grad(reinterpret[float32](ds))
	}
	n, align := x.Shape()[0], 1
	if grad != nil {
		align = 16 // the kernel's rounds
	}
	parallelFor((n+align-1)/align, align*g*b*(4*e+2*d+12), func(lo, hi int) {
		lo, hi = lo*align, min(hi*align, n)
		w, dw, tmp := make([]T, b), make([]T, b), as.scratch()
		rows := func(lo, hi int) {
			for r := lo * g; r < hi*g; r++ {
				gg := r % g
				xr := xs[r*e : (r+1)*e]
				as.row(w, xr, tmp)
				statsRowBackward(dw, dps[r*d:(r+1)*d], w, ps[r*d:(r+1)*d], ds[gg*b*(d+2):(gg+1)*b*(d+2)], false)
				as.rowBackward(dxs[r*e:(r+1)*e], dw, w, xr)
			}
		}
		if grad != nil {
			lo = grad(reinterpret[float32](dxs), reinterpret[float32](dps), reinterpret[float32](xs), reinterpret[float32](ps), lo, hi, rows)
		}
		rows(lo, hi)
	})
}

// The composed versions.

func anchorsOn[T Float](dev Device[T], sb SoftBins) *Tensor[T] {
	a := newAnchorSet[T](sb).a
	return FromSliceOn(dev, a, 1, 1, len(a)/sb.Dim, sb.Dim)
}

// distances is x − a_j [N, G, B, E].
func distances[T Float](x *Tensor[T], sb SoftBins) *Tensor[T] {
	sh := x.Shape()
	return Sub(Reshape(x, sh[0], sh[1], 1, sh[2]), anchorsOn(x.Device(), sb))
}

func softAssignComposed[T Float](x *Tensor[T], sb SoftBins) *Tensor[T] {
	diff := distances(x, sb)
	return Softmax(Scale(Sum(Mul(diff, diff), 3, false), T(-1/sb.Tau)), 2)
}

func softAssignBackwardComposed[T Float](dw, w, x *Tensor[T], sb SoftBins) *Tensor[T] {
	dz := Mul(w, Sub(dw, Sum(Mul(w, dw), 2, true)))
	return Scale(Sum(Mul(Unsqueeze(dz, 3), distances(x, sb)), 2, false), T(-2/sb.Tau))
}

func binStatsComposed[T Float](w, p *Tensor[T]) *Tensor[T] {
	n := Sum(w, 0, false)
	m := Sum(Mul(Unsqueeze(w, 3), Unsqueeze(p, 2)), 0, false)
	q := Sum(Mul(w, Sum(Mul(p, p), 2, true)), 0, false)
	return Concat(2, Unsqueeze(n, 2), m, Unsqueeze(q, 2))
}

func binStatsBackwardComposed[T Float](ds, w, p *Tensor[T]) (dw, dp *Tensor[T]) {
	g, b, d := ds.Shape()[0], ds.Shape()[1], p.Shape()[2]
	dn, dm, dq := Reshape(Narrow(ds, 2, 0, 1), g, b), Narrow(ds, 2, 1, d), Reshape(Narrow(ds, 2, d+1, 1), g, b)
	pp := Sum(Mul(p, p), 2, true) // [N, G, 1]
	dw = Add(Add(dn, Sum(Mul(Unsqueeze(p, 2), dm), 3, false)), Mul(pp, dq))
	dp = Add(Sum(Mul(Unsqueeze(w, 3), dm), 2, false), Mul(Scale(p, 2), Sum(Mul(w, dq), 2, true)))
	return dw, dp
}
