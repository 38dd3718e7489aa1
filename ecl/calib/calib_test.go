package calib

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/ecl/metrics"
)

// draw samples a class from probabilities p.
func draw(rng *rand.Rand, p []float64) int {
	u := rng.Float64()
	for j, v := range p {
		if u -= v; u < 0 {
			return j
		}
	}
	return len(p) - 1
}

// gaussianLogits returns n rows of k logits N(0, sd²).
func gaussianLogits(rng *rand.Rand, n, k int, sd float64) []float64 {
	z := make([]float64, n*k)
	for i := range z {
		z[i] = sd * rng.NormFloat64()
	}
	return z
}

// labelsFrom samples one label per row of probabilities [n, k].
func labelsFrom(rng *rand.Rand, p []float64, k int) []int {
	y := make([]int, len(p)/k)
	for i := range y {
		y[i] = draw(rng, p[i*k:(i+1)*k])
	}
	return y
}

// temperatureScaled is softmax(z/t) written out, independently of the
// package's softmax.
func temperatureScaled(z []float64, k int, t float64) []float64 {
	p := make([]float64, len(z))
	for i := 0; i < len(z); i += k {
		s := 0.0
		for j := range k {
			p[i+j] = math.Exp(z[i+j] / t)
			s += p[i+j]
		}
		for j := range k {
			p[i+j] /= s
		}
	}
	return p
}

func maxAbsDiff(a, b []float64) float64 {
	m := 0.0
	for i := range a {
		m = max(m, math.Abs(a[i]-b[i]))
	}
	return m
}

// roundTrip saves and loads c and checks that it maps logits as before.
func roundTrip(t *testing.T, method string, k int, c Calibrator, logits []float64) {
	t.Helper()
	data, err := Save(method, k, "logits", c)
	if err != nil {
		t.Fatal(err)
	}
	s, back, err := Load(data)
	if err != nil {
		t.Fatalf("%s: %v\n%s", method, err, data)
	}
	if s.Method != method || s.Classes != k {
		t.Errorf("%s: loaded %+v", method, s)
	}
	want, err := c.Apply(logits, k)
	if err != nil {
		t.Fatal(err)
	}
	got, err := back.Apply(logits, k)
	if err != nil {
		t.Fatal(err)
	}
	if d := maxAbsDiff(got, want); d != 0 {
		t.Errorf("%s: loaded calibrator differs by %g", method, d)
	}
}

func TestTemperatureRecoversKnownTemperature(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const k, n, temp = 4, 20000, 2.5
	z := gaussianLogits(rng, n, k, 3)
	y := labelsFrom(rng, temperatureScaled(z, k, temp), k)
	c, err := FitTemperature(z, k, y, nil)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(c.T-temp)/temp > 0.03 {
		t.Errorf("T = %v, want %v within 3%%", c.T, temp)
	}
	// On ln of the probabilities the fit is the same (softmax forgets the
	// per-row shift).
	c2, err := FitTemperature(LogProbs(Softmax(z, k)), k, y, nil)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(c2.T-c.T) > 1e-6 {
		t.Errorf("T on log-probabilities %v, on logits %v", c2.T, c.T)
	}
	roundTrip(t, "ts", k, c, z[:40])
}

// shifted builds a covariate shift with a known density ratio: a 1-D
// feature x ~ N(0, 1) on the source and N(μ, 1) on the target, so
// p_t/p_s = exp(μx − μ²/2); logits z ~ N(0, 3²) whose true temperature
// exp(x/2) grows with x, so the target needs a larger one than the source.
func shifted(rng *rand.Rand, n, k int, mu float64, target bool) (x, z []float64, y []int) {
	x, z, y = make([]float64, n), gaussianLogits(rng, n, k, 3), make([]int, n)
	for i := range x {
		x[i] = rng.NormFloat64()
		if target {
			x[i] += mu
		}
		y[i] = draw(rng, temperatureScaled(z[i*k:(i+1)*k], k, math.Exp(x[i]/2)))
	}
	return x, z, y
}

func TestDomainWeightsKnownDensityRatio(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const mu = 1.5
	xs, _, _ := shifted(rng, 4000, 3, mu, false)
	xt, _, _ := shifted(rng, 4000, 3, mu, true)
	w, diag, err := DomainWeights(xs, xt, 1, DomainOptions{Clip: 1e9, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for i, x := range xs {
		if math.Abs(x) > 2 {
			continue // the tails carry the estimate's largest errors
		}
		truth := math.Exp(mu*x - mu*mu/2)
		worst = max(worst, math.Abs(w[i]-truth)/truth)
	}
	if worst > 0.25 {
		t.Errorf("weights off the true density ratio by up to %.0f%% for |x| ≤ 2", 100*worst)
	}
	// AUC of the true log-ratio between N(0,1) and N(μ,1): Φ(μ/√2).
	want := 0.5 * math.Erfc(-mu/2)
	if math.Abs(diag.AUC-want) > 0.02 {
		t.Errorf("AUC %v, want Φ(μ/√2) = %v", diag.AUC, want)
	}
	// Kish's ESS of weights exp(μx − μ²/2) under N(0,1): n·exp(−μ²).
	if got, want := diag.ESSFraction, math.Exp(-mu*mu); math.Abs(got-want) > 0.04 {
		t.Errorf("ESS fraction %v, want about %v", got, want)
	}
	if diag.ClipRate != 0 || len(diag.Quantiles) != 7 || diag.Quantiles[0].W > diag.Quantiles[6].W {
		t.Errorf("diagnostics %+v", diag)
	}

	// No shift: AUC near 1/2, ESS near n.
	xs2, _, _ := shifted(rng, 4000, 3, 0, false)
	_, diag, err = DomainWeights(xs, xs2, 1, DomainOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(diag.AUC-0.5) > 0.04 || diag.ESSFraction < 0.98 {
		t.Errorf("no shift: AUC %v, ESS fraction %v", diag.AUC, diag.ESSFraction)
	}
}

func TestAUCHandWorked(t *testing.T) {
	// Pairs (neg, pos): (1,2) 1, (1,3) 1, (2,2) ½, (2,3) 1 → 3.5/4.
	if got := AUC([]float64{1, 2}, []float64{2, 3}); got != 0.875 {
		t.Errorf("AUC = %v, want 0.875", got)
	}
}

func TestImportanceWeightedTSRecoversTargetTemperature(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const k, n, mu = 3, 8000, 1.5
	xs, zs, ys := shifted(rng, n, k, mu, false)
	xt, zt, yt := shifted(rng, n, k, mu, true)
	oracle, err := FitTemperature(zt, k, yt, nil)
	if err != nil {
		t.Fatal(err)
	}
	src, err := FitTemperature(zs, k, ys, nil)
	if err != nil {
		t.Fatal(err)
	}
	w, _, err := DomainWeights(xs, xt, 1, DomainOptions{Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	iw, err := FitTemperature(zs, k, ys, w)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(iw.T-oracle.T) > math.Abs(src.T-oracle.T)/3 {
		t.Errorf("importance-weighted T %.3f, source T %.3f, target oracle %.3f: the weights should close most of the gap", iw.T, src.T, oracle.T)
	}
	cp, err := FitCPCS(zs, k, ys, w)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(cp.T-oracle.T) > math.Abs(src.T-oracle.T)/2 {
		t.Errorf("CPCS T %.3f, source %.3f, oracle %.3f", cp.T, src.T, oracle.T)
	}
	tc, err := FitTransCal(zs, k, ys, w, zt)
	if err != nil {
		t.Fatal(err)
	}
	if tc.T < 1 {
		t.Errorf("TransCal T %v < 1", tc.T)
	}
	if _, err := FitCPCS(zs, k, ys, nil); err == nil {
		t.Error("CPCS without weights accepted")
	}
}

// centred subtracts each column's mean over rows of a k×k matrix, and the
// mean of b: the parts of an affine map that softmax can tell apart.
func centred(w, b []float64, k int) ([]float64, []float64) {
	cw, cb := make([]float64, len(w)), make([]float64, len(b))
	for j := range k {
		m := 0.0
		for i := range k {
			m += w[i*k+j] / float64(k)
		}
		for i := range k {
			cw[i*k+j] = w[i*k+j] - m
		}
	}
	m := 0.0
	for _, v := range b {
		m += v / float64(k)
	}
	for i, v := range b {
		cb[i] = v - m
	}
	return cw, cb
}

// affineTruth maps rows x by softmax(W·x + b), written out.
func affineTruth(x, w, b []float64, k int, diag bool) []float64 {
	p := make([]float64, len(x))
	for i := 0; i < len(x); i += k {
		s := 0.0
		for r := range k {
			v := b[r]
			for c := range k {
				switch {
				case diag && c == r:
					v += w[r] * x[i+c]
				case !diag:
					v += w[r*k+c] * x[i+c]
				}
			}
			p[i+r] = math.Exp(v)
			s += p[i+r]
		}
		for r := range k {
			p[i+r] /= s
		}
	}
	return p
}

func TestAffineRecoversKnownMaps(t *testing.T) {
	const k, n = 3, 60000
	full := []float64{1.5, 0.3, -0.2, 0.1, 0.8, 0.4, -0.3, 0.2, 1.2}
	b := []float64{0.2, -0.1, 0}
	for _, tc := range []struct {
		name string
		w    []float64
		diag bool
		fit  func(z []float64, y []int) (*Affine, error)
	}{
		{"vector", []float64{0.5, 1.2, 2.0}, true, func(z []float64, y []int) (*Affine, error) { return FitVectorScaling(z, k, y, 0) }},
		{"matrix", full, false, func(z []float64, y []int) (*Affine, error) { return FitMatrixScaling(z, k, y, ODIR{}) }},
		{"dirichlet", full, false, func(z []float64, y []int) (*Affine, error) { return FitDirichlet(z, k, y, ODIR{}) }},
	} {
		rng := rand.New(rand.NewPCG(7, 8))
		z := gaussianLogits(rng, n, k, 1.5)
		x := z
		if tc.name == "dirichlet" {
			x = LogProbs(Softmax(z, k))
		}
		truth := affineTruth(x, tc.w, b, k, tc.diag)
		y := labelsFrom(rng, truth, k)
		c, err := tc.fit(z, y)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Apply(z, k)
		if err != nil {
			t.Fatal(err)
		}
		if d := maxAbsDiff(got, truth); d > 0.03 {
			t.Errorf("%s: probabilities off the true map by up to %v", tc.name, d)
		}
		var fw, tw []float64
		if tc.diag {
			fw, tw = c.W, tc.w
		} else {
			fw, _ = centred(c.W, c.B, k)
			tw, _ = centred(tc.w, b, k)
		}
		_, fb := centred(make([]float64, k*k), c.B, k)
		_, tb := centred(make([]float64, k*k), b, k)
		if d := max(maxAbsDiff(fw, tw), maxAbsDiff(fb, tb)); d > 0.08 {
			t.Errorf("%s: parameters W %v b %v, want %v %v (up to softmax's invariances)", tc.name, c.W, c.B, tc.w, b)
		}
		roundTrip(t, tc.name, k, c, z[:30])
	}
}

func TestODIRShrinksOffDiagonal(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const k = 4
	z := gaussianLogits(rng, 500, k, 2)
	y := labelsFrom(rng, temperatureScaled(z, k, 1.5), k)
	offDiag := func(c *Affine) float64 {
		s := 0.0
		for i := range k {
			for j := range k {
				if i != j {
					s += c.W[i*k+j] * c.W[i*k+j]
				}
			}
		}
		return s
	}
	free, err := FitDirichlet(z, k, y, ODIR{})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := FitDirichlet(z, k, y, ODIR{Lambda: 10, Mu: 10})
	if err != nil {
		t.Fatal(err)
	}
	if !(offDiag(reg) < offDiag(free)/10) {
		t.Errorf("off-diagonal mass %v with ODIR, %v without", offDiag(reg), offDiag(free))
	}
}

// binaryLogits turns P(class 1) into two-class logits [0, logit p].
func binaryLogits(p []float64) []float64 {
	z := make([]float64, 2*len(p))
	for i, v := range p {
		z[2*i+1] = math.Log(v / (1 - v))
	}
	return z
}

func TestMonotoneMapRecovered(t *testing.T) {
	// Scores s ~ U(0.02, 0.98) with P(y = 1 | s) = s².
	rng := rand.New(rand.NewPCG(11, 12))
	const n = 200000
	s, y := make([]float64, n), make([]int, n)
	for i := range s {
		s[i] = 0.02 + 0.96*rng.Float64()
		if rng.Float64() < s[i]*s[i] {
			y[i] = 1
		}
	}
	z := binaryLogits(s)
	iso, err := FitIsotonic(z, 2, y)
	if err != nil {
		t.Fatal(err)
	}
	grid := []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}
	got, err := iso.Apply(binaryLogits(grid), 2)
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range grid {
		if math.Abs(got[2*i+1]-g*g) > 0.02 || math.Abs(got[2*i]+got[2*i+1]-1) > 1e-12 {
			t.Errorf("isotonic at %v: %v, want %v", g, got[2*i:2*i+2], g*g)
		}
	}
	hist, err := FitHistogram(z, 2, y, 10, false)
	if err != nil {
		t.Fatal(err)
	}
	mids := []float64{0.05, 0.15, 0.25, 0.35, 0.45, 0.55, 0.65, 0.75, 0.85, 0.95}
	got, err = hist.Apply(binaryLogits(mids), 2)
	if err != nil {
		t.Fatal(err)
	}
	for j, m := range mids {
		// The mean of s² over the bin's part of (0.02, 0.98).
		lo, hi := max(m-0.05, 0.02), min(m+0.05, 0.98)
		want := (hi*hi*hi - lo*lo*lo) / 3 / (hi - lo)
		if math.Abs(got[2*j+1]-want) > 0.015 {
			t.Errorf("histogram bin %d: %v, want %v", j, got[2*j+1], want)
		}
	}
	roundTrip(t, "isotonic", 2, iso, z[:50])
	roundTrip(t, "hist", 2, hist, z[:50])
}

func TestPAVHandWorked(t *testing.T) {
	// [1, 0] violate the order and pool to ½; 3 and 4 pool at 1.
	x, y := pav([]float64{4, 2, 3, 1}, []float64{4, 3, 1}) // outcomes 1, 0, 1, 1
	wantX, wantY := []float64{1, 2, 3, 4}, []float64{0.5, 0.5, 1, 1}
	if maxAbsDiff(x, wantX) != 0 || maxAbsDiff(y, wantY) != 0 || len(x) != 4 {
		t.Fatalf("knots %v %v, want %v %v", x, y, wantX, wantY)
	}
	for _, c := range []struct{ v, want float64 }{{0, 0.5}, {2.5, 0.75}, {9, 1}} {
		if got := interpolate(x, y, c.v); got != c.want {
			t.Errorf("interpolate(%v) = %v, want %v", c.v, got, c.want)
		}
	}
}

func TestOneVsRestMulticlassRowsSumToOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const k = 4
	z := gaussianLogits(rng, 3000, k, 3)
	y := labelsFrom(rng, temperatureScaled(z, k, 0.5), k) // under-confident model
	before, _ := metrics.ECE(Softmax(z, k), k, y, metrics.Options{})
	for _, fit := range []func() (Calibrator, error){
		func() (Calibrator, error) { return FitIsotonic(z, k, y) },
		func() (Calibrator, error) { return FitHistogram(z, k, y, 15, true) },
	} {
		c, err := fit()
		if err != nil {
			t.Fatal(err)
		}
		p, err := c.Apply(z, k)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(p); i += k {
			if s := p[i] + p[i+1] + p[i+2] + p[i+3]; math.Abs(s-1) > 1e-12 {
				t.Fatalf("%T: row %d sums to %v", c, i/k, s)
			}
		}
		after, _ := metrics.ECE(p, k, y, metrics.Options{})
		if !(after.Error < before.Error/2) {
			t.Errorf("%T: in-sample ECE %v → %v", c, before.Error, after.Error)
		}
	}
}

func TestPlattAndBetaRecoverKnownMaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	const n = 40000
	z, y := make([]float64, 2*n), make([]int, n)
	for i := range n {
		z[2*i+1] = 2 * rng.NormFloat64()
		if rng.Float64() < sigmoid(1.7*z[2*i+1]-0.4) {
			y[i] = 1
		}
	}
	pl, err := FitPlatt(z, 2, y)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(pl.A-1.7) > 0.08 || math.Abs(pl.B+0.4) > 0.08 {
		t.Errorf("Platt (A, B) = (%v, %v), want (1.7, −0.4)", pl.A, pl.B)
	}
	roundTrip(t, "platt", 2, pl, z[:20])

	p := make([]float64, n)
	for i := range n {
		p[i] = 0.01 + 0.98*rng.Float64()
		y[i] = 0
		if rng.Float64() < sigmoid(2*math.Log(p[i])-0.5*math.Log(1-p[i])+0.3) {
			y[i] = 1
		}
	}
	bz := binaryLogits(p)
	be, err := FitBeta(bz, 2, y)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(be.A-2) > 0.15 || math.Abs(be.B-0.5) > 0.15 || math.Abs(be.C-0.3) > 0.15 {
		t.Errorf("beta (A, B, C) = (%v, %v, %v), want (2, 0.5, 0.3)", be.A, be.B, be.C)
	}
	roundTrip(t, "beta", 2, be, bz[:20])
	// A map decreasing in ln(1−p)'s direction is refused by the
	// constraint B ≥ 0: the fit keeps B = 0.
	for i := range n {
		y[i] = 0
		if rng.Float64() < sigmoid(1.5*math.Log(p[i])+1.0*math.Log(1-p[i])) {
			y[i] = 1
		}
	}
	be, err = FitBeta(bz, 2, y)
	if err != nil {
		t.Fatal(err)
	}
	if be.A < 0 || be.B != 0 {
		t.Errorf("constrained beta (A, B, C) = (%v, %v, %v), want A ≥ 0, B = 0", be.A, be.B, be.C)
	}
	if _, err := FitPlatt(gaussianLogits(rng, 10, 3, 1), 3, make([]int, 10)); err == nil {
		t.Error("Platt on three classes accepted")
	}
}

func TestWeightedECE(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	const k = 3
	z := gaussianLogits(rng, 500, k, 2)
	p := Softmax(z, k)
	y := labelsFrom(rng, temperatureScaled(z, k, 2), k)
	got, err := WeightedECE(p, k, y, nil, 15)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := metrics.ECE(p, k, y, metrics.Options{})
	if math.Abs(got-want.Error) > 1e-12 {
		t.Errorf("unweighted %v, metrics.ECE %v", got, want.Error)
	}
	// Weight 2 on a row is the row twice.
	w := make([]float64, 500)
	dp, dy := append([]float64(nil), p...), append([]int(nil), y...)
	for i := range w {
		w[i] = 1
		if i%3 == 0 {
			w[i] = 2
			dp, dy = append(dp, p[i*k:(i+1)*k]...), append(dy, y[i])
		}
	}
	got, _ = WeightedECE(p, k, y, w, 15)
	dup, _ := metrics.ECE(dp, k, dy, metrics.Options{})
	if math.Abs(got-dup.Error) > 1e-12 {
		t.Errorf("weighted %v, duplicated rows %v", got, dup.Error)
	}
}

// TestImportanceWeightsMatchDomainWeights checks that the weights without
// the diagnostics are DomainWeights', bit for bit, balanced (domains of
// unequal size, so that the balancing draws) and not.
func TestImportanceWeightsMatchDomainWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	xs, xt := make([]float64, 2*300), make([]float64, 2*500)
	for i := range xs {
		xs[i] = rng.NormFloat64()
	}
	for i := range xt {
		xt[i] = rng.NormFloat64() + 0.7
	}
	for _, balance := range []bool{false, true} {
		o := DomainOptions{Balance: balance, Seed: 3}
		want, _, err := DomainWeights(xs, xt, 2, o)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ImportanceWeights(xs, xt, 2, o)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("balance %v: ImportanceWeights differs from DomainWeights' weights", balance)
		}
	}
	if _, err := ImportanceWeights(xs, xt[:1], 2, DomainOptions{}); err == nil || !strings.Contains(err.Error(), "calib.ImportanceWeights") {
		t.Errorf("half a target row: error %v, want one naming calib.ImportanceWeights", err)
	}
}

// TestECEIntervalCoverage draws data from a model with a known true
// binned ECE (temperature 1.5 too hot) many times and checks that the 95%
// interval covers the truth at least 90% of the time.
func TestECEIntervalCoverage(t *testing.T) {
	const k, n, trials = 3, 1000, 100
	rng := rand.New(rand.NewPCG(19, 20))
	// The truth: each bin's mean confidence against its mean true
	// probability of the predicted class, on a large sample.
	big := gaussianLogits(rng, 400000, k, 1.5)
	truthProbs := temperatureScaled(big, k, 1.5)
	conf, _ := metrics.TopLabel(Softmax(big, k), k, make([]int, 400000))
	pred := make([]int, 400000)
	for i := range pred {
		pred[i] = metrics.Argmax(big[i*k : (i+1)*k])
	}
	var truth float64
	{
		sc, st, cnt := make([]float64, 15), make([]float64, 15), make([]float64, 15)
		for i, c := range conf {
			j := min(int(math.Ceil(c*15))-1, 14)
			sc[j] += c
			st[j] += truthProbs[i*k+pred[i]]
			cnt[j]++
		}
		for j := range sc {
			truth += math.Abs(sc[j]-st[j]) / 400000
		}
	}
	covered := 0
	for trial := range trials {
		z := gaussianLogits(rng, n, k, 1.5)
		y := labelsFrom(rng, temperatureScaled(z, k, 1.5), k)
		iv, err := ECEInterval(Softmax(z, k), k, y, nil, 15, 200, 0.95, uint64(trial))
		if err != nil {
			t.Fatal(err)
		}
		if iv.Lo <= truth && truth <= iv.Hi {
			covered++
		}
	}
	if covered < 90 {
		t.Errorf("95%% intervals covered the true ECE %.4f in %d of %d trials", truth, covered, trials)
	}
	t.Logf("true ECE %.4f covered %d/%d", truth, covered, trials)
}

func TestPseudoTarget(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const k = 3
	z := gaussianLogits(rng, 400, k, 2)
	set, err := PseudoTarget(z, k, 64, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Labels) == 0 || len(set.Pairs) != len(set.Labels) || set.Logits != nil {
		t.Fatalf("%d labels, %d pairs, %d logits", len(set.Labels), len(set.Pairs), len(set.Logits))
	}
	if _, err := PseudoTarget(make([]float64, 30), k, 8, 1); err == nil {
		t.Error("a target whose predictions all agree gave a pseudo-target set")
	}
}

func TestECLHeadRecoversTemperatureWithoutShift(t *testing.T) {
	// Source and target from one distribution with a known temperature:
	// the ECL term has nothing to correct and both heads land on it.
	rng := rand.New(rand.NewPCG(23, 24))
	const k, n, temp = 3, 1500, 2.0
	zs, zt := gaussianLogits(rng, n, k, 3), gaussianLogits(rng, n, k, 3)
	ys := labelsFrom(rng, temperatureScaled(zs, k, temp), k)
	for _, o := range []ECLOptions{{Head: "ts", Paradigm: ecl.TopLabel, Steps: 60}, {Head: "vs", Paradigm: ecl.Canonical, Steps: 60}} {
		c, err := FitECLHead(zs, k, ys, zt, nil, nil, 0, o)
		if err != nil {
			t.Fatal(err)
		}
		var inv []float64
		switch c := c.(type) {
		case *Temperature:
			inv = []float64{1 / c.T}
		case *Affine:
			inv = c.W
		}
		for _, v := range inv {
			if math.Abs(1/v-temp)/temp > 0.1 {
				t.Errorf("%s head, %v: scale %v, want 1/%v within 10%%", o.Head, o.Paradigm, inv, temp)
			}
		}
	}
}

// TestECEIntervalMatchesResampledRows checks the per-sample bootstrap
// against WeightedECE evaluated on each resample's rows, with and without
// weights: the same resamples, whose sums the interval adds in sample
// order (each sample times its count) rather than in draw order, so the
// ends agree to rounding (1e-12 relative), not bit for bit.
func TestECEIntervalMatchesResampledRows(t *testing.T) {
	const n, k, b, reps = 700, 5, 15, 40
	r := rand.New(rand.NewPCG(5, 6))
	z, y, w := make([]float64, n*k), make([]int, n), make([]float64, n)
	for i := range n {
		y[i] = r.IntN(k)
		w[i] = r.ExpFloat64()
		for c := range k {
			z[i*k+c] = 2 * r.NormFloat64()
		}
		z[i*k+y[i]] += 1.5
	}
	probs := Softmax(z, k)
	for _, ws := range [][]float64{nil, w} {
		vals := make([]float64, reps)
		metrics.Resample(n, reps, rand.New(rand.NewPCG(9, 0xb007)), func(r int, idx []int) {
			p, yy := metrics.Subset(probs, k, y, idx)
			var wr []float64
			if ws != nil {
				wr = make([]float64, n)
				for j, i := range idx {
					wr[j] = ws[i]
				}
			}
			e, err := WeightedECE(p, k, yy, wr, b)
			if err != nil {
				t.Fatal(err)
			}
			vals[r] = e
		})
		v, err := WeightedECE(probs, k, y, ws, b)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := metrics.BasicInterval(v, vals, 0.95)
		iv, err := ECEInterval(probs, k, y, ws, b, reps, 0.95, 9)
		if err != nil {
			t.Fatal(err)
		}
		if d := maxAbsDiff([]float64{iv.Lo, iv.Hi}, []float64{max(lo, 0), max(hi, 0)}); !(d <= 1e-12*max(lo, hi)) {
			t.Errorf("weights %v: interval [%v, %v], resampled rows give [%v, %v]", ws != nil, iv.Lo, iv.Hi, max(lo, 0), max(hi, 0))
		}
	}
}

// TestAuxiliaryIterationsCap checks that the auxiliary regression stops at
// its cap: one L-BFGS iteration leaves the source likelihood below that of
// the fit run to convergence.
func TestAuxiliaryIterationsCap(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	const k, n = 4, 800
	zs, zt := gaussianLogits(rng, n, k, 2), gaussianLogits(rng, n, k, 2)
	ys := labelsFrom(rng, temperatureScaled(zs, k, 0.5), k)
	logLik := func(iters int) float64 {
		a, err := fitAuxiliary(zs, zt, k, k, ys, 1e-3, iters)
		if err != nil {
			t.Fatal(err)
		}
		p, ll := a.probs(zs), 0.0
		for i, y := range ys {
			ll += math.Log(p[i*k+y])
		}
		return ll / n
	}
	capped, full := logLik(1), logLik(DefaultAffineIterations)
	if !(capped < full-1e-3) {
		t.Errorf("mean log-likelihood %v after 1 iteration, %v at convergence: want the capped fit below", capped, full)
	}
}
