package baselines

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// domainSample is n source and m target rows of d features, the target
// shifted and both off centre and unevenly scaled, as logits are.
func domainSample(r *rand.Rand, n, m, d int) (src, tgt []float64) {
	src, tgt = make([]float64, n*d), make([]float64, m*d)
	for i := range src {
		src[i] = 3 + float64(i%d+1)*r.NormFloat64()
	}
	for i := range tgt {
		tgt[i] = 3.5 + float64(i%d+1)*r.NormFloat64()
	}
	return src, tgt
}

// pickRows copies row i of x counts[i] times: the training set that counts
// stand for, written out.
func pickRows(x []float64, d int, counts []float64) []float64 {
	var out []float64
	for i, c := range counts {
		for range int(c) {
			out = append(out, x[i*d:(i+1)*d]...)
		}
	}
	return out
}

func closeDomains(t *testing.T, name string, got, want *Domain, tol float64) {
	t.Helper()
	for j := range want.W {
		if math.Abs(got.W[j]-want.W[j]) > tol*(1+math.Abs(want.W[j])) {
			t.Errorf("%s: w[%d] = %v, want %v", name, j, got.W[j], want.W[j])
		}
	}
	if math.Abs(got.B-want.B) > tol*(1+math.Abs(want.B)) || math.Abs(got.prior-want.prior) > 1e-12 {
		t.Errorf("%s: b = %v, prior %v; want %v, %v", name, got.B, got.prior, want.B, want.prior)
	}
}

// Counts stand for rows left out and repeated: the fit equals FitDomain on
// the rows they pick, copied out.
func TestDomainRowsCountsMatchCopies(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n, m, d = 700, 500, 3
	src, tgt := domainSample(r, n, m, d)
	cs, ct := make([]float64, n), make([]float64, m)
	for i := range cs {
		cs[i] = float64(r.IntN(3))
	}
	for i := range ct {
		ct[i] = float64(r.IntN(2))
	}
	got, err := DomainRows{Source: src, Target: tgt, D: d, SourceCount: cs, TargetCount: ct}.Fit(1e-3)
	if err != nil {
		t.Fatal(err)
	}
	want, err := FitDomain(pickRows(src, d, cs), pickRows(tgt, d, ct), d, 1e-3)
	if err != nil {
		t.Fatal(err)
	}
	closeDomains(t, "counts", got, want, 1e-6)
}

// Mean and Scale fit on standardised features: the same classifier as
// FitDomain on standardised copies, mapped back to raw rows.
func TestDomainRowsStandardisedMatchesCopies(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const n, m, d = 600, 400, 4
	src, tgt := domainSample(r, n, m, d)
	mean, scale := []float64{3, 3.2, 2.9, 3.1}, []float64{1, 2.5, 3, 4.5}
	std := func(x []float64) []float64 {
		out := make([]float64, len(x))
		for i, v := range x {
			out[i] = (v - mean[i%d]) / scale[i%d]
		}
		return out
	}
	got, err := DomainRows{Source: src, Target: tgt, D: d, Mean: mean, Scale: scale}.Fit(1e-2)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := FitDomain(std(src), std(tgt), d, 1e-2)
	if err != nil {
		t.Fatal(err)
	}
	want := &Domain{W: make([]float64, d), B: ref.B, prior: ref.prior}
	for j := range want.W {
		want.W[j] = ref.W[j] / scale[j]
		want.B -= want.W[j] * mean[j]
	}
	closeDomains(t, "standardised", got, want, 1e-6)
	for i := range 5 {
		x := src[i*d : (i+1)*d]
		if a, b := got.Ratio(x, 0, 0), ref.Ratio(std(x), 0, 0); math.Abs(a-b) > 1e-6*b {
			t.Errorf("ratio of row %d: %v on raw rows, %v on standardised ones", i, a, b)
		}
	}
}

// The partial sums are added block by block in a fixed order: the fit is
// the same bit for bit on one core and on several, over many blocks.
func TestDomainRowsIndependentOfCores(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	src, tgt := domainSample(r, 5*domainBlock+17, 3*domainBlock+5, 6)
	fit := func(procs int) *Domain {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		m, err := FitDomain(src, tgt, 6, 1e-3)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	a, b := fit(1), fit(4)
	if !slices.Equal(a.W, b.W) || a.B != b.B {
		t.Errorf("one core: %v %v; four: %v %v", a.W, a.B, b.W, b.B)
	}
}

// Balance tops up the domain that counts fewer, among the rows it counts,
// until both count as many.
func TestDomainRowsBalance(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	x := DomainRows{Source: make([]float64, 2*4), Target: make([]float64, 7*4), D: 4}
	x.Balance(r)
	if countOf(x.SourceCount, 0) != 7 || !slices.Equal(x.TargetCount, []float64{1, 1, 1, 1, 1, 1, 1}) {
		t.Errorf("balanced counts %v and %v", x.SourceCount, x.TargetCount)
	}
	y := DomainRows{Source: make([]float64, 6), Target: make([]float64, 3), D: 1, SourceCount: []float64{1, 0, 1, 1, 0, 1}}
	y.Balance(r)
	if !slices.Equal(y.SourceCount, []float64{1, 0, 1, 1, 0, 1}) || countOf(y.TargetCount, 0) != 4 {
		t.Errorf("balanced counts %v and %v", y.SourceCount, y.TargetCount)
	}
	z := DomainRows{Source: make([]float64, 3), Target: make([]float64, 6), D: 1, SourceCount: []float64{0, 1, 1}}
	z.Balance(r)
	if z.SourceCount[0] != 0 || countOf(z.SourceCount, 0) != 6 {
		t.Errorf("the left-out row was drawn, or the source was not topped up: %v", z.SourceCount)
	}
}

func TestDomainRowsErrors(t *testing.T) {
	for _, c := range []struct {
		x    DomainRows
		want string
	}{
		{DomainRows{Source: make([]float64, 4), Target: make([]float64, 5), D: 2}, "4 source and 5 target values for 2 features"},
		{DomainRows{Source: make([]float64, 4), Target: make([]float64, 4), D: 2, Mean: []float64{0, 0}}, "2 means and 0 scales"},
		{DomainRows{Source: make([]float64, 4), Target: make([]float64, 4), D: 2, SourceCount: []float64{1}}, "1 source and 0 target counts for 2 and 2 rows"},
		{DomainRows{Source: make([]float64, 4), Target: make([]float64, 4), D: 2, TargetCount: []float64{0, 0}}, "the source counts 2 rows and the target 0"},
		{DomainRows{Source: make([]float64, 4), Target: make([]float64, 4), D: 2, TargetCount: []float64{1, -1}}, "count -1 at row 1"},
		{DomainRows{Source: make([]float64, 4), Target: make([]float64, 4), D: 2, Mean: []float64{0, 0}, Scale: []float64{1, 0}}, "scale 0 of feature 1"},
	} {
		if _, err := c.x.Fit(0); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error containing %q", err, c.want)
		}
	}
}

// TestDomainFitStationary checks the fit against the objective written
// a row at a time with the textbook σ(z) = 1/(1 + e^−z): at the fitted
// weights its gradient, (1/n)·Σ (σ(z_i) − y_i)·x_i + l2·w, is zero, on
// domains far enough apart that z reaches ±10 (both branches of the
// kernel's σ and of its ln(1 + eᶻ)).
func TestDomainFitStationary(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	const n, d, l2 = 3000, 3, 1e-3
	src, tgt := make([]float64, n*d), make([]float64, n*d)
	for i := range src {
		src[i] = r.NormFloat64()
		tgt[i] = r.NormFloat64() + 2.5
	}
	m, err := FitDomain(src, tgt, d, l2)
	if err != nil {
		t.Fatal(err)
	}
	grad := make([]float64, d+1)
	zmax := 0.0
	for _, set := range []struct {
		rows []float64
		y    float64
	}{{src, 0}, {tgt, 1}} {
		for i := range n {
			x := set.rows[i*d : (i+1)*d]
			z := m.B
			for j, v := range x {
				z += m.W[j] * v
			}
			zmax = max(zmax, math.Abs(z))
			res := 1/(1+math.Exp(-z)) - set.y
			for j, v := range x {
				grad[j] += res * v / (2 * n)
			}
			grad[d] += res / (2 * n)
		}
	}
	for j := range d {
		grad[j] += l2 * m.W[j]
	}
	if zmax < 10 {
		t.Fatalf("|z| at most %v: the test wants rows past 10", zmax)
	}
	for j, g := range grad {
		if math.Abs(g) > 1e-8 {
			t.Errorf("gradient of the objective at the fit, component %d: %v, want 0", j, g)
		}
	}
}
