package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// dirichletPDF is the Dirichlet density at z with α = f/h + 1, computed
// directly (no logs, no clamping) as an independent check of the kernel.
func dirichletPDF(z, f []float64, h float64) float64 {
	num, sumA, normGamma := 1.0, 0.0, 1.0
	for c := range z {
		a := f[c]/h + 1
		num *= math.Pow(z[c], a-1)
		sumA += a
		normGamma *= math.Gamma(a)
	}
	return num * math.Gamma(sumA) / normGamma
}

// betaPDF is the Beta density at z with parameters f/h + 1, (1 − f)/h + 1.
func betaPDF(z, f, h float64) float64 {
	a, b := f/h+1, (1-f)/h+1
	return math.Pow(z, a-1) * math.Pow(1-z, b-1) * math.Gamma(a+b) / (math.Gamma(a) * math.Gamma(b))
}

// naiveKDE is the ECE^KDE of docs/method.md, "Metrics", written out directly, O(n²) kernel
// evaluations without log space, for inputs away from 0 and 1.
func naiveKDE(probs []float64, k int, labels []int, mode KDEMode, h, p float64) float64 {
	n := len(labels)
	row := func(i int) []float64 { return probs[i*k : (i+1)*k] }
	// ratio returns the leave-one-out kernel average of outcome at sample j.
	ratio := func(j int, kern func(j, i int) float64, outcome func(i int) float64) float64 {
		num, den := 0.0, 0.0
		for i := range n {
			if i != j {
				w := kern(j, i)
				num += w * outcome(i)
				den += w
			}
		}
		return num / den
	}
	total := 0.0
	switch mode {
	case KDECanonical:
		for j := range n {
			for c := range k {
				r := ratio(j, func(j, i int) float64 { return dirichletPDF(row(j), row(i), h) },
					func(i int) float64 { return b2f(labels[i] == c) })
				total += math.Pow(math.Abs(r-row(j)[c]), p)
			}
		}
	case KDEBinary:
		for j := range n {
			r := ratio(j, func(j, i int) float64 { return betaPDF(probs[j], probs[i], h) },
				func(i int) float64 { return float64(labels[i]) })
			total += 2 * math.Pow(math.Abs(r-probs[j]), p)
		}
	case KDETopLabel:
		conf, correct := TopLabel(probs, k, labels)
		for j := range n {
			r := ratio(j, func(j, i int) float64 { return betaPDF(conf[j], conf[i], h) },
				func(i int) float64 { return correct[i] })
			total += math.Pow(math.Abs(r-conf[j]), p)
		}
	case KDEMarginal:
		for c := range k {
			for j := range n {
				r := ratio(j, func(j, i int) float64 { return betaPDF(row(j)[c], row(i)[c], h) },
					func(i int) float64 { return b2f(labels[i] == c) })
				total += math.Pow(math.Abs(r-row(j)[c]), p) / float64(k)
			}
		}
	}
	return total / float64(n)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Two samples: leaving one out leaves the other alone, so r_j is the other
// sample's one-hot label whatever the kernel. For rows (.7, .3) label 0 and
// (.2, .8) label 1: r_0 = (0, 1), ‖r_0 − f_0‖₁ = .7 + .7 = 1.4;
// r_1 = (1, 0), ‖r_1 − f_1‖₁ = .8 + .8 = 1.6; the estimate is 1.5.
func TestKDETwoSamples(t *testing.T) {
	probs := []float64{.7, .3, .2, .8}
	for _, h := range []float64{1e-3, 0.1, 1} {
		got := must[KDEResult](t)(ECEKDE(probs, 2, []int{0, 1}, KDEOptions{Bandwidth: h}))
		near(t, "two samples", got.Value, 1.5, 1e-9)
		if got.Bandwidth != h {
			t.Errorf("bandwidth %v, want %v", got.Bandwidth, h)
		}
	}
}

// Three samples, binary, h = 1: p = (.5, .25, .75), y = (1, 0, 1). The Beta
// kernel with h = 1 is k(z; f) = z^f (1−z)^(1−f) / B(1+f, 2−f).
//   - j = 0 (z = .5): the kernels of .25 and .75 are equal by symmetry, so
//     r_0 = (0 + 1)/2 = .5 and |r_0 − .5| = 0.
//   - j = 1 (z = .25): both others have y = 1, so r_1 = 1 and |1 − .25| = .75.
//   - j = 2 (z = .75): k(.75; .5) = √(.75·.25)/B(1.5, 1.5) = .4330/.3927 =
//     1.10266 (B(1.5, 1.5) = π/8) for y = 1 and k(.75; .25) =
//     .75^.25·.25^.75/B(1.25, 1.75) = .32902/.41652 = .78993 for y = 0, so
//     r_2 = 1.10266/(1.10266 + .78993) = .58262 and |r_2 − .75| = .16738.
//
// Binary doubles the mean: 2(0 + .75 + .16738)/3 = .61159.
func TestKDEThreeSamplesByHand(t *testing.T) {
	k1 := math.Sqrt(.75*.25) / (math.Pi / 8)
	k2 := math.Pow(.75, .25) * math.Pow(.25, .75) / (math.Gamma(1.25) * math.Gamma(1.75) / 2)
	want := 2 * (0 + .75 + math.Abs(k1/(k1+k2)-.75)) / 3
	near(t, "hand value", want, .61159, 5e-5)
	got := must[KDEResult](t)(ECEKDE([]float64{.5, .25, .75}, 1, []int{1, 0, 1}, KDEOptions{Mode: KDEBinary, Bandwidth: 1}))
	near(t, "binary ECE^KDE", got.Value, want, 1e-12)
}

// Every mode against the direct formula, on random data, for p = 1 and 2,
// with n above the two-goroutine threshold.
func TestKDEMatchesDirectFormula(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	probs, labels := sample(rng, kdeParallelRows+40, 3, 0.7)
	p1 := make([]float64, len(labels))
	y1 := make([]int, len(labels))
	for i := range p1 {
		p1[i] = probs[3*i]
		y1[i] = int(b2f(labels[i] == 0))
	}
	for _, mode := range []KDEMode{KDECanonical, KDEMarginal, KDETopLabel, KDEBinary} {
		for _, p := range []float64{1, 2} {
			for _, h := range []float64{0.2, 0.6} {
				pr, k, y := probs, 3, labels
				if mode == KDEBinary {
					pr, k, y = p1, 1, y1
				}
				got := must[KDEResult](t)(ECEKDE(pr, k, y, KDEOptions{Mode: mode, P: p, Bandwidth: h}))
				want := naiveKDE(pr, k, y, mode, h, p)
				if math.Abs(got.Value-want) > 1e-10*want {
					t.Errorf("mode %d p=%v h=%v: %.15g, direct formula %.15g", mode, p, h, got.Value, want)
				}
			}
		}
	}
}

func TestKDEModesAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	probs, labels := sample(rng, 80, 2, 1)
	p := make([]float64, len(labels))
	for i := range p {
		p[i] = probs[2*i+1]
	}
	o := KDEOptions{Bandwidth: 0.05}
	can := must[KDEResult](t)(ECEKDE(probs, 2, labels, o))
	o.Mode = KDEBinary
	bin := must[KDEResult](t)(ECEKDE(p, 1, labels, o))
	near(t, "binary vs canonical on (1−p, p)", bin.Value, can.Value, 1e-12)
	o.Mode = KDEMarginal
	mean := must[KDEResult](t)(ECEKDE(probs, 2, labels, o))
	o.SumClasses = true
	sum := must[KDEResult](t)(ECEKDE(probs, 2, labels, o))
	near(t, "marginal sum vs mean", sum.Value, 2*mean.Value, 1e-12)
	near(t, "marginal K=2 vs canonical", sum.Value, can.Value, 1e-12)
}

// A calibrated sample scores lower than an over-confident one, and the
// selected bandwidth is a grid value.
func TestKDECalibratedBeatsOverconfident(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	calP, calY := sample(rng, 600, 3, 1)
	overP, overY := sample(rng, 600, 3, 0.4)
	grid := BandwidthGrid()
	for _, mode := range []KDEMode{KDECanonical, KDEMarginal, KDETopLabel} {
		cal := must[KDEResult](t)(ECEKDE(calP, 3, calY, KDEOptions{Mode: mode}))
		over := must[KDEResult](t)(ECEKDE(overP, 3, overY, KDEOptions{Mode: mode}))
		if !(cal.Value < over.Value) {
			t.Errorf("mode %d: calibrated %v ≥ over-confident %v", mode, cal.Value, over.Value)
		}
		for _, r := range []KDEResult{cal, over} {
			if !slices.Contains(grid, r.Bandwidth) {
				t.Errorf("mode %d: bandwidth %v not in the grid", mode, r.Bandwidth)
			}
		}
	}
}

// Where every leave-one-out score is negative (here three predictions near
// the corners of the simplex, far from each other at every bandwidth), the
// reference get_bandwidth returns −1; KDEBandwidth still returns a grid value.
func TestKDEBandwidthGuard(t *testing.T) {
	grid := BandwidthGrid()
	if len(grid) != 20 || grid[0] != 1e-5 || math.Abs(grid[14]-0.1) > 1e-16 || grid[19] != 1 {
		t.Fatalf("grid %v", grid)
	}
	probs := []float64{.98, .01, .01, .01, .98, .01, .01, .01, .98}
	score := newKernel(clampRows(probs, 3), 3).looLogDensity(grid)
	for g, h := range grid {
		if s := score[g] - 3*math.Log(2*h); s >= 0 {
			t.Fatalf("score %v at h=%v: this input does not exercise the guard", s, h)
		}
	}
	h := must[float64](t)(KDEBandwidth(probs, 3))
	if !slices.Contains(grid, h) {
		t.Errorf("bandwidth %v not in the grid", h)
	}
}

func TestKDEErrors(t *testing.T) {
	two := []float64{.5, .5, .2, .8}
	for name, c := range map[string]struct {
		probs  []float64
		k      int
		labels []int
		o      KDEOptions
	}{
		"one sample":    {two[:2], 2, []int{0}, KDEOptions{}},
		"one class":     {[]float64{.5, .5}, 1, []int{0, 0}, KDEOptions{}},
		"binary k=2":    {two, 2, []int{0, 1}, KDEOptions{Mode: KDEBinary}},
		"binary label":  {[]float64{.5, .5}, 1, []int{0, 2}, KDEOptions{Mode: KDEBinary}},
		"bandwidth":     {two, 2, []int{0, 1}, KDEOptions{Bandwidth: -1}},
		"exponent":      {two, 2, []int{0, 1}, KDEOptions{P: math.NaN()}},
		"mode":          {two, 2, []int{0, 1}, KDEOptions{Mode: 9}},
		"probabilities": {[]float64{.5, .5, 2, -1}, 2, []int{0, 1}, KDEOptions{}},
	} {
		if _, err := ECEKDE(c.probs, c.k, c.labels, c.o); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := KDEBandwidth([]float64{.5, .5}, 2); err == nil {
		t.Error("KDEBandwidth accepted one sample")
	}
}

// Probabilities of exactly 0 and 1 are clamped, not turned into NaN.
func TestKDEClampsExtremes(t *testing.T) {
	probs := []float64{1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0}
	got := must[KDEResult](t)(ECEKDE(probs, 3, []int{0, 1, 2, 1}, KDEOptions{}))
	if math.IsNaN(got.Value) || math.IsInf(got.Value, 0) || got.Value < 0 {
		t.Errorf("ECE^KDE with one-hot predictions = %v", got.Value)
	}
}

// The one-pass, truncated leave-one-out log-density equals the direct
// two-pass log-sum-exp over every term to rounding, on rows from very
// sharp to flat (where the truncation skips most terms or none).
func TestLooLogDensityMatchesDirectSum(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for _, sharp := range []float64{0.1, 1, 4, 10} {
		const n, d = 60, 3
		probs := make([]float64, n*d)
		for i := range n {
			s := 0.0
			for c := range d {
				probs[i*d+c] = math.Exp(sharp * r.NormFloat64())
				s += probs[i*d+c]
			}
			for c := range d {
				probs[i*d+c] /= s
			}
		}
		kern := newKernel(clampRows(probs, d), d)
		grid := BandwidthGrid()
		got := kern.looLogDensity(grid)
		for g, h := range grid {
			lb := kern.logBeta(h)
			want := 0.0
			for j := range n {
				terms := make([]float64, 0, n-1)
				for i := range n {
					if i != j {
						x := 0.0
						for c := range d {
							x += kern.z[i*d+c] * kern.logz[j*d+c]
						}
						terms = append(terms, x/h-lb[i])
					}
				}
				m := slices.Max(terms)
				s := 0.0
				for _, a := range terms {
					s += math.Exp(a - m)
				}
				want += m + math.Log(s)
			}
			if math.Abs(got[g]-want) > 1e-12*math.Abs(want) {
				t.Errorf("sharpness %v, h = %v: score %.17g, direct sum %.17g", sharp, h, got[g], want)
			}
		}
	}
}
