package tensor

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// softCase is one soft-binning problem: points x [N, G, E] near anchors in
// [0, 1]^E, values p [N, G, D] and statistics gradients ds [G, B, D+2].
type softCase struct {
	name       string
	n, g, e, d int
	b          int
	tau        float64 // small enough for some assignments to underflow to 0
	uniform    bool    // 1-D anchors (2j+1)/(2B), the bin centres
	lattice    bool    // 3-D anchors (g + 1/3)/4 for g ≥ 0 integers of sum 3 (B = 10)
}

var softCases = []softCase{
	{"canonical-k3", 37, 1, 3, 3, 10, 0.05, false, false},
	{"classwise-k4", 23, 4, 1, 1, 15, 0.05, false, false},
	{"toplabel", 41, 1, 1, 1, 15, 0.05, false, false},
	{"blocks-and-cores", 5000, 2, 2, 3, 6, 0.05, false, false}, // several blocks of the sums, split over cores
	{"underflow", 50, 2, 4, 2, 12, 0.003, false, false},
	{"uniform-1d", 300, 3, 1, 2, 15, 0.04, true, false},
	{"uniform-1d-underflow", 50, 2, 1, 1, 40, 0.0004, true, false},
	{"lattice", 200, 2, 3, 3, 10, 0.05, false, true},
	{"lattice-underflow", 60, 1, 3, 2, 10, 0.0005, false, true},
}

func (c softCase) inputs(r *rand.Rand) (x, p, ds, dw *Tensor[float64], sb SoftBins) {
	anchors := make([]float64, c.b*c.e)
	if c.lattice {
		anchors = anchors[:0]
		for g0 := range 4 {
			for g1 := range 4 - g0 {
				for _, g := range []int{g0, g1, 3 - g0 - g1} {
					anchors = append(anchors, (float64(g)+1.0/3)/4)
				}
			}
		}
	}
	for i := range anchors {
		if c.lattice {
			break
		}
		if c.uniform {
			anchors[i] = (2*float64(i) + 1) / float64(2*c.b)
		} else if r.IntN(3) > 0 { // sparse anchors, as the simplex's are
			anchors[i] = r.Float64()
		}
	}
	sb = SoftBins{Anchors: anchors, Dim: c.e, Tau: c.tau}
	return RandUniform[float64](r, 0, 1, c.n, c.g, c.e), RandUniform[float64](r, 0, 1, c.n, c.g, c.d),
		RandNormal[float64](r, 0, 1, c.g, c.b, c.d+2), RandNormal[float64](r, 0, 1, c.n, c.g, c.b), sb
}

// softBins are the anchors of c.
func (c softCase) softBins() SoftBins {
	_, _, _, _, sb := c.inputs(newRNG(0))
	return sb
}

// TestSoftBinKernelsMatchComposed checks each CPU body against the composed
// tensor ops, in float64 (to rounding) and float32.
func TestSoftBinKernelsMatchComposed(t *testing.T) {
	withProcs(t, 2)
	zeros := 0
	for i, c := range softCases {
		x, _, _, _, sb := c.inputs(newRNG(uint64(i)))
		for _, v := range SoftAssign(x, sb).Data() {
			if v == 0 {
				zeros++
			}
		}
	}
	if newAnchorSet[float64](softCases[5].softBins()).step == 0 || newAnchorSet[float32](softCases[7].softBins()).unit == 0 {
		t.Error("equally spaced or lattice anchors not recognised")
	}
	if zeros == 0 {
		t.Error("no assignment underflowed to 0: the skipping paths are not tested")
	}
	for i, c := range softCases {
		x, p, ds, dw, sb := c.inputs(newRNG(uint64(i)))
		t.Run(c.name+"/float64", func(t *testing.T) { checkSoftBin(t, x, p, ds, dw, sb, 1e-12) })
		if c.tau < 0.01 {
			continue // in float32 the composed reference itself loses |k|·ε = ε/τ
		}
		t.Run(c.name+"/float32", func(t *testing.T) {
			checkSoftBin(t, Convert[float32](x), Convert[float32](p), Convert[float32](ds), Convert[float32](dw), sb, 2e-4)
		})
	}
}

func checkSoftBin[T Float](t *testing.T, x, p, ds, dw *Tensor[T], sb SoftBins, rel float64) {
	same := func(name string, got, want *Tensor[T]) {
		t.Helper()
		if !expectShape(t, name, got, want.Shape()...) {
			return
		}
		wd := want.Data()
		expectEach(t, name, got, rel, func(idx []int) float64 { return float64(wd[offsetOf(Contiguous(want), idx)]) })
	}
	w := SoftAssignComposed(x, sb)
	same("SoftAssign", SoftAssign(x, sb), w)
	same("SoftAssignBackward", SoftAssignBackward(dw, w, x, sb), softAssignBackwardComposed(dw, w, x, sb))
	stats := binStatsComposed(w, p)
	same("BinStats", BinStats(w, p), stats)
	gw, gp := BinStatsBackward(ds, w, p)
	rw, rp := binStatsBackwardComposed(ds, w, p)
	same("BinStatsBackward/w", gw, rw)
	same("BinStatsBackward/p", gp, rp)
	same("SoftBinStats", SoftBinStats(x, p, sb), stats)
	gx, gp := SoftBinStatsBackward(ds, x, p, sb)
	same("SoftBinStatsBackward/x", gx, softAssignBackwardComposed(rw, w, x, sb))
	same("SoftBinStatsBackward/p", gp, rp)
}

// The sums do not depend on the number of cores.
func TestSoftBinStatsIndependentOfCores(t *testing.T) {
	c := softCases[3]
	x, p, _, _, sb := c.inputs(newRNG(9))
	withProcs(t, 1)
	one := SoftBinStats(x, p, sb).Data()
	withProcs(t, 3)
	for i, v := range SoftBinStats(x, p, sb).Data() {
		if v != one[i] {
			t.Fatalf("statistic %d: %v on 3 cores, %v on 1", i, v, one[i])
		}
	}
}

func TestSoftBinShapeErrors(t *testing.T) {
	sb := SoftBins{Anchors: []float64{0, 0.5, 1}, Dim: 1, Tau: 0.1}
	x, p := Zeros[float64](4, 2, 1), Zeros[float64](4, 2, 3)
	mustPanic(t, func() { SoftAssign(Zeros[float64](4, 2), sb) }, "SoftAssign", "[4 2]", "[N, G, 1]")
	mustPanic(t, func() { SoftAssign(x, SoftBins{Anchors: []float64{0, 1}, Dim: 2, Tau: 1}) }, "SoftAssign", "[4 2 1]", "[N, G, 2]")
	mustPanic(t, func() { SoftBinStats(x, p, SoftBins{Anchors: sb.Anchors, Dim: 1, Tau: 0}) }, "SoftBinStats", "temperature 0")
	mustPanic(t, func() { SoftAssign(Zeros[float64](4, 2, 2), SoftBins{Anchors: []float64{0, 1, 2}, Dim: 2, Tau: 1}) }, "3 anchor values of dimension 2")
	mustPanic(t, func() { SoftBinStats(x, Zeros[float64](3, 2, 3), sb) }, "SoftBinStats", "[4 2 1]", "[3 2 3]")
	mustPanic(t, func() { SoftBinStatsBackward(Zeros[float64](2, 3, 4), x, p, sb) }, "SoftBinStatsBackward", "[2 3 4]", "[2 3 5]")
}

// TestKernelRegistry: a body registered for a device is found and called;
// declaring a name twice panics.
func TestKernelRegistry(t *testing.T) {
	k := NewKernel[float64]("test_scale")
	if _, ok := Lookup(k, Device[float32](CPU[float32]{})); ok {
		t.Fatal("a body before registration")
	}
	Register(k, Device[float32](CPU[float32]{}), func(out, in []*Tensor[float32], a float64) {
		for i, v := range HostData(in[0]) {
			HostData(out[0])[i] = v * float32(a)
		}
	})
	body, ok := Lookup(k, Device[float32](CPU[float32]{}))
	if !ok {
		t.Fatal("registered body not found")
	}
	if _, ok := Lookup(k, Device[float64](CPU[float64]{})); ok {
		t.Error("the float32 body was found for float64")
	}
	out := Zeros[float32](2)
	body([]*Tensor[float32]{out}, []*Tensor[float32]{FromSlice([]float32{1, 2})}, 3)
	expectData(t, "body", out, 3, 6)
	mustPanic(t, func() { NewKernel[struct{}]("test_scale") }, "test_scale", "twice")
	found := false
	for _, n := range Kernels() {
		found = found || n == "soft_bin_stats"
	}
	if !found {
		t.Errorf("soft_bin_stats missing from Kernels() = %v", Kernels())
	}
}

// TestSoft1DKernelsMatchScalar checks each set of vector kernels of the
// 1-D soft bins (soft1D) against the scalar loops, in float32: whole rounds
// and tails, one and several groups, the ECL temperature and one where
// assignments underflow, points outside the anchors' range and non-finite
// points and values (rounds the AVX2 kernels leave to the scalar path, or
// all of them), anchors not equally spaced, and a non-finite statistics
// gradient (no vector backward).
func TestSoft1DKernelsMatchScalar(t *testing.T) {
	if len(soft1DSets) == 0 {
		t.Skip("no vector soft-binning kernels on this CPU or build")
	}
	withProcs(t, 2)
	defer func(s soft1DKernels) { soft1DSet = s }(soft1DSet)
	cases := []struct {
		name    string
		n, g, b int
		tau     float64
		bad     bool // non-finite x, p and ds entries
	}{
		{"toplabel", 1000, 1, 15, 0.0422, false},
		{"toplabel-tail", 37, 1, 15, 0.0422, false},
		{"classwise-k3", 530, 3, 15, 0.0422, false},
		{"classwise-k10", 2100, 10, 15, 0.0422, false},
		{"even-bins", 530, 3, 10, 0.0422, false},
		{"underflow", 300, 2, 40, 0.0004, false},
		{"non-finite", 700, 3, 15, 0.0422, true},
		{"empty", 0, 2, 15, 0.0422, false},
		{"two-bins", 300, 2, 2, 0.0422, false},
		{"far-points", 500, 2, 15, 0.0422, false},
		{"uneven-anchors", 300, 2, 15, 0.0422, false},
	}
	for _, set := range soft1DSets {
		soft1DSet = set
		for i, c := range cases {
			r := newRNG(uint64(100 + i))
			anchors := make([]float64, c.b)
			for j := range anchors {
				anchors[j] = (2*float64(j) + 1) / float64(2*c.b)
			}
			if c.name == "uneven-anchors" {
				anchors[3] += 0.01
			}
			sb := SoftBins{Anchors: anchors, Dim: 1, Tau: c.tau}
			x, p := RandUniform[float32](r, 0, 1, c.n, c.g, 1), RandUniform[float32](r, 0, 1, c.n, c.g, 1)
			ds := RandNormal[float32](r, 0, 1, c.g, c.b, 3)
			if c.bad {
				HostData(x)[5*c.g+1] = float32(math.NaN())
				HostData(x)[40*c.g] = float32(math.Inf(1))
				HostData(p)[300*c.g+2] = float32(math.Inf(-1))
			}
			if c.name == "far-points" { // every fifth round has a point where the terms underflow
				for row := 0; row < c.n; row += 80 {
					HostData(x)[row*c.g+1] = 40
				}
			}
			t.Run(set.name+"/"+c.name, func(t *testing.T) { vectorMatchesScalar(t, x, p, ds, sb, c.bad, 2e-5, 1e-4) })
		}
	}
}

// vectorMatchesScalar checks SoftBinStats and its backward with the vector
// kernels against the scalar loops (softAsm off), the statistics to within
// rel and the gradients to within grel; with bad, also for a NaN in ds.
func vectorMatchesScalar(t *testing.T, x, p, ds *Tensor[float32], sb SoftBins, bad bool, rel, grel float64) {
	t.Helper()
	scalar := func(f func()) {
		defer func(a bool, s soft1DKernels) { softAsm, soft1DSet = a, s }(softAsm, soft1DSet)
		softAsm, soft1DSet = false, soft1DKernels{}
		f()
	}
	vs := SoftBinStats(x, p, sb)
	vx, vp := SoftBinStatsBackward(ds, x, p, sb)
	var ss, sx, sp *Tensor[float32]
	scalar(func() {
		ss = SoftBinStats(x, p, sb)
		sx, sp = SoftBinStatsBackward(ds, x, p, sb)
	})
	for _, cmp := range []struct {
		name      string
		got, want *Tensor[float32]
		rel       float64
	}{{"stats", vs, ss, rel}, {"dx", vx, sx, grel}, {"dp", vp, sp, grel}} {
		wd := cmp.want.Data()
		expectEach(t, cmp.name, cmp.got, cmp.rel, func(idx []int) float64 { return float64(wd[offsetOf(cmp.want, idx)]) })
	}
	if bad {
		ds = Clone(ds)
		HostData(ds)[4] = float32(math.NaN())
		gx, _ := SoftBinStatsBackward(ds, x, p, sb)
		var wx *Tensor[float32]
		scalar(func() { wx, _ = SoftBinStatsBackward(ds, x, p, sb) })
		wd := wx.Data()
		expectEach(t, "dx/NaN gradient", gx, 0, func(idx []int) float64 { return float64(wd[offsetOf(wx, idx)]) })
	}
}

// simplexAnchors are the simplex-lattice anchors (g + 1/k)/(s+1) for every
// vector g ≥ 0 of k integers summing to s (as ecl/bins.Simplex lays them
// out), and their number.
func simplexAnchors(k, s int) ([]float64, int) {
	var a []float64
	g := make([]int, k)
	var rec func(c, left int)
	rec = func(c, left int) {
		if c == k-1 {
			g[c] = left
			for _, v := range g {
				a = append(a, (float64(v)+1/float64(k))/float64(s+1))
			}
			return
		}
		for v := 0; v <= left; v++ {
			g[c] = v
			rec(c+1, left-v)
		}
	}
	rec(0, s)
	return a, len(a) / k
}

// TestSoftCanonKernelsMatchScalar checks the vector kernels of the soft
// bins of K-dimensional points (softCanon) against the scalar loops, in
// float32: simplex anchors for K = 2, 3, 4, 10, 20 at the ECL temperature
// −1/(B² ln 0.9) (where the kernels take the terms from the lattice, K = 2,
// 3, 20, or not, K = 10), N = 0, 1 and tails not a multiple of 16, more
// than 16 coordinates (gathered, not permuted), a temperature where rounds
// go either way between the lattice and the exponentials, one where most
// assignments underflow, sparse anchors off any lattice with values of
// another dimension, non-finite points and values (taken on the scalar
// path) and a non-finite statistics gradient (no vector backward).
func TestSoftCanonKernelsMatchScalar(t *testing.T) {
	if !softAsm {
		t.Skip("no vector soft-binning kernels on this CPU or build")
	}
	withProcs(t, 2)
	cases := []struct {
		name       string
		n, k, s, d int // s: the simplex grid's sum, 0 for random sparse anchors (15 of them)
		tau        float64
		bad        bool
		// grel bounds the gradients' differences: at τ = 0.0002,
		// dx = 2k·Σ_j dz_j·(x − a_j) with k = −5000 amplifies the
		// float32 rounding of the sums, either path being off from
		// float64 by 1e-2 (|dx| up to 400), so the two orders of
		// summation differ by up to 5e-4; at τ = 0.0005 (k = −2000)
		// by up to 3e-4.
		grel float64
	}{
		{"k2", 37, 2, 14, 2, 0, false, 2e-4},
		{"k3", 3000, 3, 4, 3, 0, false, 2e-4},
		{"k3-one", 1, 3, 4, 3, 0, false, 2e-4},
		{"k3-empty", 0, 3, 4, 3, 0, false, 2e-4},
		{"k4-tail", 1000 + 7, 4, 3, 4, 0, false, 2e-4},
		{"k10", 531, 10, 2, 10, 0, false, 2e-4},
		{"k3-underflow", 600, 3, 4, 3, 0.0005, false, 3e-4},
		{"k10-underflow", 300, 10, 2, 10, 0.0002, false, 1e-3},
		{"sparse-e4-d3", 333, 4, 0, 3, 0.05, false, 2e-4},
		{"k3-non-finite", 700, 3, 4, 3, 0, true, 2e-4},
		{"k20", 100, 20, 1, 20, 0, false, 2e-4},
		{"sparse-e4-d17", 50, 4, 0, 17, 0.05, false, 2e-4},
		{"k3-lattice-mixed", 3000, 3, 4, 3, 0.0225, false, 2e-4},
	}
	for i, c := range cases {
		r := newRNG(uint64(200 + i))
		anchors, b := simplexAnchors(c.k, c.s)
		if c.s == 0 {
			b, anchors = 15, make([]float64, 15*c.k)
			for j := range anchors {
				if r.IntN(3) > 0 {
					anchors[j] = r.Float64()
				}
			}
		}
		tau := c.tau
		if tau == 0 {
			tau = -1 / (math.Log(0.9) * float64(b*b))
		}
		sb := SoftBins{Anchors: anchors, Dim: c.k, Tau: tau}
		x := Softmax(RandNormal[float32](r, 0, 2, c.n, 1, c.k), 2)
		p := Softmax(RandNormal[float32](r, 0, 2, c.n, 1, c.d), 2)
		ds := RandNormal[float32](r, 0, 1, 1, b, c.d+2)
		if c.bad {
			HostData(x)[5*c.k+1] = float32(math.NaN())
			HostData(x)[40*c.k] = float32(math.Inf(1))
			HostData(p)[300*c.d+2] = float32(math.Inf(-1))
		}
		t.Run(c.name, func(t *testing.T) { vectorMatchesScalar(t, x, p, ds, sb, c.bad, 2e-5, c.grel) })
	}
}

// newAnchorSet builds a set once for each anchors: equal anchors (another
// slice) share it, and anchors changed in place after a call get their own.
func TestAnchorSetReusedOnlyForEqualAnchors(t *testing.T) {
	a := []float64{0.1, 0.9, 0.5, 0.5, 0.9, 0.1}
	sb := SoftBins{Anchors: a, Dim: 2, Tau: 0.01}
	first := newAnchorSet[float64](sb)
	if again := newAnchorSet[float64](SoftBins{Anchors: slices.Clone(a), Dim: 2, Tau: 0.01}); again != first {
		t.Error("equal anchors built again")
	}
	if other := newAnchorSet[float64](SoftBins{Anchors: a, Dim: 2, Tau: 0.02}); other == first {
		t.Error("another temperature shares the set")
	}
	if f32 := newAnchorSet[float32](sb); f32.a[2] != float32(0.5) {
		t.Errorf("float32 set %v", f32.a)
	}
	a[2] = 0.4
	if changed := newAnchorSet[float64](sb); changed == first || changed.a[2] != 0.4 {
		t.Errorf("anchors changed in place: set %v, first %p, now %p", changed.a, first, changed)
	}
}
