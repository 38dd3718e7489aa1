package tensor

import (
	"math"
	"testing"
)

// wideCase is a soft-binning problem for softWide: x [N, 1, E] drawn as
// softmax(σ·z) rows, values p [N, 1, D] in [0, 1], on the simplex anchors
// (e_c + 1/K)/2 (B = K, the ECL's for K ≥ 15) or on dense random anchors.
type wideCase struct {
	name     string
	n, k, d  int
	b        int     // dense random anchors of dimension k when > 0
	sigma    float64 // the spread of the points' logits
	tau      float64 // 0: the ECL temperature −1/(B² ln 0.9)
	dense    bool    // over 1/softWideSparse of ω nonzero (the products), else few
	nonFinit bool    // a NaN point, an infinite value
}

var wideCases = []wideCase{
	{"simplex-sparse", 3000, 40, 40, 0, 2, 2e-5, false, false},
	{"simplex-ecl-tau-flat", 3000, 40, 40, 0, 0.002, 0, true, false},
	{"simplex-warm", 1500, 40, 40, 0, 2, 0.05, true, false},
	{"dense-anchors", 700, 8, 50, 30, 1, 0.5, true, false},
	{"non-finite", 600, 40, 40, 0, 0.002, 0, true, true},
	{"short", 5, 40, 40, 0, 0.002, 0, true, false},
}

func (c wideCase) inputs() (x, p, ds *Tensor[float64], sb SoftBins) {
	r := newRNG(uint64(c.n*c.k + c.d))
	anchors, b := simplexAnchors(c.k, 1)
	if c.b > 0 {
		b, anchors = c.b, make([]float64, c.b*c.k)
		for i := range anchors {
			anchors[i] = r.Float64()
		}
	}
	tau := c.tau
	if tau == 0 {
		tau = -1 / (math.Log(0.9) * float64(b*b))
	}
	x = Softmax(RandNormal[float64](r, 0, c.sigma, c.n, 1, c.k), 2)
	p = RandUniform[float64](r, 0, 1, c.n, 1, c.d)
	if c.nonFinit {
		HostData(x)[17*c.k+3] = math.NaN()
		HostData(p)[400*c.d+1] = math.Inf(1)
	}
	return x, p, RandNormal[float64](r, 0, 1, 1, b, c.d+2), SoftBins{Anchors: anchors, Dim: c.k, Tau: tau}
}

// withWide sets softWideMin for one test: 0 takes softWide for every
// single-group problem, math.MaxInt never (the rows as before it).
func withWide(t *testing.T, min int) {
	t.Helper()
	old := softWideMin
	softWideMin = min
	t.Cleanup(func() { softWideMin = old })
}

// softBinAll is SoftBinStats and its backward.
func softBinAll[T Float](x, p, ds *Tensor[T], sb SoftBins) (stats, dx, dp *Tensor[T]) {
	dx, dp = SoftBinStatsBackward(ds, x, p, sb)
	return SoftBinStats(x, p, sb), dx, dp
}

// onPath runs f with softWideMin at min and the vector kernels as vec says.
func onPath(t *testing.T, min int, vec bool, f func()) {
	t.Helper()
	old, oldAsm := softWideMin, softAsm
	softWideMin, softAsm = min, softAsm && vec
	defer func() { softWideMin, softAsm = old, oldAsm }()
	f()
}

// expectClose checks got against want elementwise: equal NaNs and
// infinities, else |got − want| ≤ rel·max(|want|, 10⁻³·max|want|).
func expectClose[T Float](t *testing.T, name string, got, want *Tensor[T], rel float64) {
	t.Helper()
	g, w := got.Data(), want.Data()
	if !expectShape(t, name, got, want.Shape()...) {
		return
	}
	scale := 0.0
	for _, v := range w {
		if v := math.Abs(float64(v)); !math.IsInf(v, 0) && !math.IsNaN(v) {
			scale = max(scale, v)
		}
	}
	bad := 0
	for i := range w {
		gv, wv := float64(g[i]), float64(w[i])
		if math.IsNaN(wv) || math.IsInf(wv, 0) {
			if !(math.IsNaN(wv) && math.IsNaN(gv)) && gv != wv {
				bad++
			}
			continue
		}
		if !(math.Abs(gv-wv) <= rel*max(math.Abs(wv), 1e-3*scale)) {
			if bad++; bad <= 3 {
				t.Errorf("%s[%d] = %v, want %v (rel %.1e)", name, i, gv, wv, math.Abs(gv-wv)/math.Abs(wv))
			}
		}
	}
	if bad > 3 {
		t.Errorf("%s: %d of %d values off", name, bad, len(w))
	}
}

// maxRelError is the largest |got − want|/max(|want|, 10⁻³·max|want|) over
// the finite values of want.
func maxRelError[T Float](got *Tensor[T], want *Tensor[float64]) float64 {
	g, w := got.Data(), want.Data()
	scale, worst := 0.0, 0.0
	for _, v := range w {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			scale = max(scale, math.Abs(v))
		}
	}
	for i, v := range w {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			worst = max(worst, math.Abs(float64(g[i])-v)/max(math.Abs(v), 1e-3*scale))
		}
	}
	return worst
}

// TestSoftWideMatchesRows checks softWide (SoftBinStats and its backward
// at many anchors and wide values) against the scalar rows it replaces:
// in float64 to 1e-6 relative, whether the chunks go through the products
// (dense ω) or the rows (ω nearly one-hot at the ECL temperature), with
// NaNs where the rows have them; in float32 no further from float64 than
// the path before, and bit for bit the float32 rows where every chunk takes
// the rows.
func TestSoftWideMatchesRows(t *testing.T) {
	withProcs(t, 2)
	for _, c := range wideCases {
		t.Run(c.name, func(t *testing.T) {
			x, p, ds, sb := c.inputs()
			if !c.nonFinit {
				nz := 0
				for _, v := range SoftAssign(x, sb).Data() {
					if v != 0 {
						nz++
					}
				}
				if dense := nz*softWideSparse > len(sb.Anchors)/sb.Dim*c.n; dense != c.dense {
					t.Fatalf("%d of %d assignments nonzero: dense %v, want %v", nz, len(sb.Anchors)/sb.Dim*c.n, dense, c.dense)
				}
			}
			var ws, wx, wp, gs, gx, gp *Tensor[float64]
			onPath(t, math.MaxInt, true, func() { ws, wx, wp = softBinAll(x, p, ds, sb) })
			onPath(t, 0, true, func() { gs, gx, gp = softBinAll(x, p, ds, sb) })
			expectClose(t, "stats", gs, ws, 1e-6)
			expectClose(t, "dx", gx, wx, 1e-6)
			expectClose(t, "dp", gp, wp, 1e-6)

			x32, p32, ds32 := Convert[float32](x), Convert[float32](p), Convert[float32](ds)
			var fs, fx, fp, rs, rx, rp *Tensor[float32]
			onPath(t, 0, true, func() { fs, fx, fp = softBinAll(x32, p32, ds32, sb) })
			if !c.dense { // every chunk on the rows, as the float32 rows
				onPath(t, math.MaxInt, false, func() { rs, rx, rp = softBinAll(x32, p32, ds32, sb) })
				expectClose(t, "float32 stats", fs, rs, 0)
				expectClose(t, "float32 dx", fx, rx, 0)
				expectClose(t, "float32 dp", fp, rp, 0)
			}
			// In float32, off float64 by at most twice what the path before
			// it is (vector kernels included), and 1e-5.
			onPath(t, math.MaxInt, true, func() { rs, rx, rp = softBinAll(x32, p32, ds32, sb) })
			for _, f := range []struct {
				name      string
				got, prev *Tensor[float32]
				want      *Tensor[float64]
			}{{"stats", fs, rs, ws}, {"dx", fx, rx, wx}, {"dp", fp, rp, wp}} {
				if got, prev := maxRelError(f.got, f.want), maxRelError(f.prev, f.want); got > 2*prev+1e-5 {
					t.Errorf("float32 %s: off float64 by %.1e, the path before by %.1e", f.name, got, prev)
				}
			}
		})
	}
}

// A NaN in the statistics' gradient takes the rows, which skip the bins
// a point is not in, as before.
func TestSoftWideNaNGradient(t *testing.T) {
	x, p, ds, sb := wideCases[1].inputs()
	HostData(ds)[7] = math.NaN()
	var wx, wp, gx, gp *Tensor[float64]
	onPath(t, math.MaxInt, true, func() { wx, wp = SoftBinStatsBackward(ds, x, p, sb) })
	onPath(t, 0, true, func() { gx, gp = SoftBinStatsBackward(ds, x, p, sb) })
	expectClose(t, "dx", gx, wx, 0)
	expectClose(t, "dp", gp, wp, 0)
}

// softWide's sums do not depend on the number of cores.
func TestSoftWideIndependentOfCores(t *testing.T) {
	withWide(t, 0)
	x, p, _, sb := wideCases[1].inputs()
	x32, p32 := Convert[float32](x), Convert[float32](p)
	withProcs(t, 1)
	one := SoftBinStats(x32, p32, sb).Data()
	withProcs(t, 3)
	for i, v := range SoftBinStats(x32, p32, sb).Data() {
		if v != one[i] {
			t.Fatalf("statistic %d: %v on 3 cores, %v on 1", i, v, one[i])
		}
	}
}

// The canonical ECL at K = 1,000 takes softWide; K = 10 does not.
func TestSoftWideApplies(t *testing.T) {
	for _, c := range []struct {
		k    int
		want bool
	}{{1000, true}, {128, true}, {10, false}} {
		a, _ := simplexAnchors(c.k, 1)
		as := newAnchorSet[float32](SoftBins{Anchors: a, Dim: c.k, Tau: 1})
		if got := newSoftWide(as, 1, c.k) != nil; got != c.want {
			t.Errorf("K = %d: softWide %v, want %v", c.k, got, c.want)
		}
		if newSoftWide(as, 2, c.k) != nil {
			t.Errorf("K = %d: softWide for two groups", c.k)
		}
	}
}

// sparseCases are wideCases plus points with tied largest coordinates and
// a simplex grid of two steps (anchors with two nonzero coordinates).
func sparseCases() []struct {
	name       string
	x, p, ds   *Tensor[float64]
	sb         SoftBins
	wantSparse bool // every chunk of 256 points has a sparse assignment in float32
} {
	type sc = struct {
		name       string
		x, p, ds   *Tensor[float64]
		sb         SoftBins
		wantSparse bool
	}
	var cs []sc
	for _, c := range wideCases {
		if c.b > 0 { // off the lattice
			continue
		}
		x, p, ds, sb := c.inputs()
		cs = append(cs, sc{c.name, x, p, ds, sb, !c.dense})
	}
	x, p, ds, sb := wideCases[0].inputs()
	xs := HostData(x)
	for i := 0; i < 3000; i += 7 { // coordinates 3 and 5 tied at the maximum
		row := xs[i*40 : (i+1)*40]
		m, _ := wideMax(row)
		row[3], row[5] = m, m
	}
	cs = append(cs, sc{"ties", x, p, ds, sb, true})
	r := newRNG(9)
	const k = 12
	anchors, b := simplexAnchors(k, 2)
	x = Softmax(RandNormal[float64](r, 0, 3, 900, 1, k), 2)
	cs = append(cs, sc{"two-steps", x, RandUniform[float64](r, 0, 1, 900, 1, k), RandNormal[float64](r, 0, 1, 1, b, k+2),
		SoftBins{Anchors: anchors, Dim: k, Tau: 5e-4}, true})
	return cs
}

// TestSoftWideSparseRows checks the sparse rows: sparseRow gives
// latticeRow's assignment, and SoftBinStats and its backward through them
// equal the dense rows bit for bit, in float32 and float64.
func TestSoftWideSparseRows(t *testing.T) {
	withWide(t, 0)
	for _, c := range sparseCases() {
		t.Run(c.name, func(t *testing.T) {
			checkSparseRows(t, c.x, c.sb)
			if all := checkSparseRows(t, Convert[float32](c.x), c.sb); all != c.wantSparse {
				t.Errorf("every float32 chunk sparse: %v, want %v", all, c.wantSparse)
			}
			compareSparse(t, c.x, c.p, c.ds, c.sb)
			compareSparse(t, Convert[float32](c.x), Convert[float32](c.p), Convert[float32](c.ds), c.sb)
		})
	}
}

// checkSparseRows compares sparseRow with latticeRow point by point and
// reports whether every chunk of x has a sparse assignment.
func checkSparseRows[T Float](t *testing.T, x *Tensor[T], sb SoftBins) bool {
	t.Helper()
	as := newAnchorSet[T](sb)
	v := newSoftWide(as, 1, sb.Dim)
	sr := v.sparseRows()
	if sr == nil {
		t.Fatal("no sparse rows on lattice anchors")
	}
	e, b := sb.Dim, len(as.norm)
	xs, w, tmp := HostData(x), make([]T, b), as.scratch()
	for i := range x.Shape()[0] {
		xi := xs[i*e : (i+1)*e]
		js, ws, ok := as.sparseRow(nil, nil, xi, sr.sc, b)
		if !as.latticeRow(w, xi, tmp) {
			if ok {
				t.Fatalf("point %d: sparse where latticeRow is not", i)
			}
			continue
		}
		if !ok {
			t.Fatalf("point %d: no sparse row", i)
		}
		at := 0
		for j, want := range w {
			got := T(0)
			if at < len(js) && int(js[at]) == j {
				got, at = ws[at], at+1
			}
			if got != want {
				t.Fatalf("point %d anchor %d: %v, latticeRow %v", i, j, got, want)
			}
		}
		if at != len(js) {
			t.Fatalf("point %d: anchors %v not ascending or out of range", i, js)
		}
	}
	all := true
	for r0 := 0; r0 < len(xs)/e; r0 += softWideRows {
		m := min(softWideRows, len(xs)/e-r0)
		all = all && v.assignSparse(sr, xs[r0*e:(r0+m)*e])
	}
	return all
}

// compareSparse checks SoftBinStats and its backward with the sparse rows
// against the dense rows, bit for bit.
func compareSparse[T Float](t *testing.T, x, p, ds *Tensor[T], sb SoftBins) {
	t.Helper()
	old := softWideSparseRows
	defer func() { softWideSparseRows = old }()
	softWideSparseRows = false
	ws, wx, wp := softBinAll(x, p, ds, sb)
	softWideSparseRows = true
	gs, gx, gp := softBinAll(x, p, ds, sb)
	expectClose(t, "stats", gs, ws, 0)
	expectClose(t, "dx", gx, wx, 0)
	expectClose(t, "dp", gp, wp, 0)
}
