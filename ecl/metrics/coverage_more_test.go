package metrics

import (
	"math"
	"math/rand/v2"
	"testing"
)

// chiMean against the closed forms of 1 and 3 degrees of freedom (σ = 1,
// ν = μ): √(2/π)·e^(−ν²/2) + ν·erf(ν/√2) and
// √(2/π)·e^(−ν²/2) + (ν + 1/ν)·erf(ν/√2), and against the central chi
// mean √2·Γ((r+1)/2)/Γ(r/2) at ν = 0 (r = 2: √(π/2)).
func TestChiMeanClosedForms(t *testing.T) {
	for _, nu := range []float64{0.01, 0.3, 1, 2.5, 7, 19, 25} {
		e := math.Sqrt(2/math.Pi)*math.Exp(-nu*nu/2) + nu*math.Erf(nu/math.Sqrt2)
		if got := chiMean(nu, 1, 1); math.Abs(got-e) > 1e-9*e {
			t.Errorf("r = 1, ν = %v: %v, want %v", nu, got, e)
		}
		e3 := math.Sqrt(2/math.Pi)*math.Exp(-nu*nu/2) + (nu+1/nu)*math.Erf(nu/math.Sqrt2)
		if got := chiMean(2*nu, 2, 3); math.Abs(got-2*e3) > 1e-6*e3 {
			t.Errorf("r = 3, ν = %v: %v, want %v", nu, got, 2*e3)
		}
	}
	if got := chiMean(0, 1, 2); math.Abs(got-math.Sqrt(math.Pi/2)) > 1e-12 {
		t.Errorf("r = 2, ν = 0: %v, want √(π/2)", got)
	}
	// unfoldVec inverts it.
	for _, mu := range []float64{0.5, 1, 3} {
		if got := unfoldVec(chiMean(mu, 0.4, 2), 0.4, 2); math.Abs(got-mu) > 1e-9 {
			t.Errorf("unfoldVec(chiMean(%v)) = %v", mu, got)
		}
	}
}

// mceTruth is the population MCE of slopeData with DefaultBins bins, by
// hand: the gap s·(c − 0.5) grows with c, so the largest mean gap is the
// last bin's (14/15, 1], midpoint 29/30: s·(29/30 − 1/2) = 7s/15.
func mceTruth(s float64) float64 { return 7 * s / 15 }

// TestMCEIntervalCoverage: MCEInterval covers the population MCE in at
// least 92% of 300 draws (nominally ≥ 95%; measured 0.940, 0.977, 0.997;
// the standard error of a coverage over 300 draws is 0.013) from perfectly
// calibrated to over-confident data, and better than the basic bootstrap
// interval it replaced (ErrorInterval) where the error is large (0.850 at
// s = 0.4).
func TestMCEIntervalCoverage(t *testing.T) {
	const trials, reps, level = 300, 50, 0.95
	for _, tc := range []struct {
		s    float64
		n    int
		seed uint64
	}{{0, 500, 4}, {0.1, 400, 5}, {0.4, 800, 6}} {
		truth := mceTruth(tc.s)
		rng := rand.New(rand.NewPCG(tc.seed, 7))
		hits, basicHits := 0, 0
		for range trials {
			probs, labels := slopeData(rng, tc.n, tc.s)
			cal := must[Calibration](t)(ECE(probs, 2, labels, Options{}))
			if lo, hi := MCEInterval(cal, level); lo <= truth && truth <= hi {
				hits++
			}
			mce := must[Calibration](t)(ECE(probs, 2, labels, Options{Norm: Max})).Error
			var vals, sqVals []float64
			Resample(tc.n, reps, rng, func(_ int, idx []int) {
				p, y := Subset(probs, 2, labels, idx)
				vals = append(vals, must[Calibration](t)(ECE(p, 2, y, Options{Norm: Max})).Error)
				sqVals = append(sqVals, DebiasedSquared(must[Calibration](t)(ECE(p, 2, y, Options{}))))
			})
			if lo, hi := ErrorInterval(mce, vals, DebiasedSquared(cal), sqVals, level); lo <= truth && truth <= hi {
				basicHits++
			}
		}
		cov, basic := float64(hits)/trials, float64(basicHits)/trials
		t.Logf("s = %.1f, n = %d: MCE truth %.4f covered %.3f (basic bootstrap %.3f)", tc.s, tc.n, truth, cov, basic)
		if cov < 0.92 {
			t.Errorf("s = %.1f, n = %d: MCEInterval covers the truth %.4f in %.3f of %d draws, want ≥ 0.92", tc.s, tc.n, truth, cov, trials)
		}
		if tc.s == 0.4 && basic >= cov {
			t.Errorf("s = %.1f: the basic interval covered %.3f, MCEInterval %.3f; the test no longer shows what MCEInterval fixes", tc.s, basic, cov)
		}
	}
}

// threePoints draws n three-class predictions, each one of three fixed
// probability vectors ps (chosen with the probabilities in weights), with
// labels drawn from the class distribution qs of that vector.
func threePoints(rng *rand.Rand, n int, ps, qs [3][3]float64) ([]float64, []int) {
	probs, labels := make([]float64, 0, 3*n), make([]int, n)
	for i := range n {
		j := rng.IntN(3)
		probs = append(probs, ps[j][:]...)
		u := rng.Float64()
		labels[i] = 2
		if u < qs[j][0] {
			labels[i] = 0
		} else if u < qs[j][0]+qs[j][1] {
			labels[i] = 1
		}
	}
	return probs, labels
}

// TestCanonicalIntervalCoverageThreeClasses: for K = 3 the canonical
// interval (L1Interval around DebiasedL1Canonical) covers the population
// canonical error at least 90% of the time. The predictions take three
// values, one per canonical bin, each a third of the time, so the truth is
// by hand (1/3)·Σ_j ‖p_j − q_j‖₂ for the label distributions q_j. Where
// the truth is not 0 the corrected estimate's mean bias must be under a
// third of the plug-in's: measured +0.0079 and −0.0007 against +0.0301 and
// +0.0065; the correction of one dimension used before for every K left
// +0.0167 and +0.0063 (coverage 0.913 and 0.940, now 0.927 and 0.943).
func TestCanonicalIntervalCoverageThreeClasses(t *testing.T) {
	const trials, reps, level = 300, 50, 0.95
	ps := [3][3]float64{{0.7, 0.2, 0.1}, {0.1, 0.6, 0.3}, {0.2, 0.2, 0.6}}
	for _, tc := range []struct {
		name  string
		qs    [3][3]float64
		truth float64
		n     int
		seed  uint64
	}{
		{"calibrated", ps, 0, 300, 8},
		// q_0 = (0.6, 0.25, 0.15): gap (0.1, −0.05, −0.05), norm √0.015;
		// q_1 = (0.1, 0.5, 0.4): gap (0, 0.1, −0.1), norm √0.02; q_2 = p_2.
		{"slightly over-confident", [3][3]float64{{0.6, 0.25, 0.15}, {0.1, 0.5, 0.4}, ps[2]}, (math.Sqrt(0.015) + math.Sqrt(0.02)) / 3, 300, 9},
		// q_j = (1/3, 1/3, 1/3) each: gaps of norms √0.2066…, √0.1466…, √0.0866….
		{"uninformative", [3][3]float64{{1. / 3, 1. / 3, 1. / 3}, {1. / 3, 1. / 3, 1. / 3}, {1. / 3, 1. / 3, 1. / 3}},
			(math.Sqrt(0.7*0.7+0.2*0.2+0.1*0.1-1./3) + math.Sqrt(0.1*0.1+0.6*0.6+0.3*0.3-1./3) + math.Sqrt(0.2*0.2+0.2*0.2+0.6*0.6-1./3)) / 3, 200, 10},
	} {
		rng := rand.New(rand.NewPCG(tc.seed, 11))
		hits := 0
		var sumDeb, sumPlug float64
		for trial := range trials {
			probs, labels := threePoints(rng, tc.n, ps, tc.qs)
			can := must[Canonical](t)(CanonicalECE(probs, 3, labels, Options{}))
			if trial == 0 {
				used := 0
				for _, b := range can.Bins {
					if b.Count > 0 {
						used++
					}
				}
				if used != 3 {
					t.Fatalf("%s: the three prediction vectors fill %d canonical bins, want 3", tc.name, used)
				}
			}
			var vals, sqVals []float64
			Resample(tc.n, reps, rng, func(_ int, idx []int) {
				p, y := Subset(probs, 3, labels, idx)
				c := must[Canonical](t)(CanonicalECE(p, 3, y, Options{}))
				vals, sqVals = append(vals, DebiasedL1Canonical(c)), append(sqVals, DebiasedSquaredCanonical(c))
			})
			if lo, hi := L1Interval(DebiasedL1Canonical(can), vals, DebiasedSquaredCanonical(can), sqVals, level); lo <= tc.truth && tc.truth <= hi {
				hits++
			}
			sumDeb, sumPlug = sumDeb+DebiasedL1Canonical(can), sumPlug+can.Error
		}
		cov := float64(hits) / trials
		bias, plugBias := sumDeb/trials-tc.truth, sumPlug/trials-tc.truth
		t.Logf("%s, n = %d: canonical truth %.4f covered %.3f; mean bias of the corrected estimate %+.4f, of the plug-in %+.4f", tc.name, tc.n, tc.truth, cov, bias, plugBias)
		if tc.truth > 0 && math.Abs(bias) > math.Abs(plugBias)/3 {
			t.Errorf("%s: the corrected estimate's mean bias %+.4f is over a third of the plug-in's %+.4f", tc.name, bias, plugBias)
		}
		if cov < 0.9 {
			t.Errorf("%s, n = %d: the canonical interval covers the truth %.4f in %.3f of %d draws, want ≥ 0.9", tc.name, tc.n, tc.truth, cov, trials)
		}
	}
}

// TestKDEBootstrapIntervalMissesTheTruth measures what ecl eval's note
// says: bootstrap intervals around ECE^KDE (top-label, p = 1, the full
// sample's bandwidth held fixed, as ecl eval built them) do not cover the
// true calibration error of slopeData, E|s·(c − 1/2)| = s/4 for
// c ~ U(1/2, 1), because the estimator's smoothing bias at these sizes
// (mean estimate 0.18 for a truth of 0 and 0.20 for 0.05 at n = 300,
// measured over 100 draws) is several times its bootstrap spread: the
// basic and percentile intervals covered the truth in 0 to 5% of draws.
// Should this test fail, ECE^KDE may have earned intervals again.
func TestKDEBootstrapIntervalMissesTheTruth(t *testing.T) {
	const trials, reps, level = 30, 20, 0.95
	for _, tc := range []struct {
		s    float64
		seed uint64
	}{{0, 12}, {0.2, 13}} {
		truth := tc.s / 4
		rng := rand.New(rand.NewPCG(tc.seed, 14))
		hits := 0
		for range trials {
			probs, labels := slopeData(rng, 300, tc.s)
			o := KDEOptions{Mode: KDETopLabel}
			full := must[KDEResult](t)(ECEKDE(probs, 2, labels, o))
			o.Bandwidth = full.Bandwidth
			var vals []float64
			Resample(300, reps, rng, func(_ int, idx []int) {
				p, y := Subset(probs, 2, labels, idx)
				vals = append(vals, must[KDEResult](t)(ECEKDE(p, 2, y, o)).Value)
			})
			if lo, hi := BasicInterval(full.Value, vals, level); max(lo, 0) <= truth && truth <= max(hi, 0) {
				hits++
			}
		}
		cov := float64(hits) / trials
		t.Logf("s = %.1f: ECE^KDE truth %.4f, basic interval covered %.3f", tc.s, truth, cov)
		if cov >= 0.5 {
			t.Errorf("s = %.1f: the basic interval of ECE^KDE covered the truth %.4f in %.3f of %d draws; ecl eval's note that it cannot no longer holds", tc.s, truth, cov, trials)
		}
	}
}

// TestChiMeanManyDimensions compares chiMean with its series summed in
// logarithms (slow, exact at any λ) where the fast forms take over: many
// degrees of freedom (the canonical bins at K = 1,000) and λ past 400.
func TestChiMeanManyDimensions(t *testing.T) {
	series := func(mu, s float64, r int) float64 {
		lam := (mu / s) * (mu / s)
		a, b, z := float64(r)/2+0.5, float64(r)/2, lam/2
		logT, logSum := 0.0, 0.0
		for k := 0; k < int(z)+200*int(math.Sqrt(z)+1)+1000; k++ {
			logT += math.Log((a+float64(k))/(b+float64(k))) + math.Log(z) - math.Log(float64(k+1))
			hi, lo := max(logSum, logT), min(logSum, logT)
			logSum = hi + math.Log1p(math.Exp(lo-hi))
		}
		lg1, _ := math.Lgamma(float64(r+1) / 2)
		lg2, _ := math.Lgamma(float64(r) / 2)
		return s * math.Sqrt2 * math.Exp(lg1-lg2-z+logSum)
	}
	for _, r := range []int{3, 10, 100, 999} {
		for _, lam := range []float64{100, 399, 401, 2000, 1e5} {
			mu := 0.01 * math.Sqrt(lam)
			want := series(mu, 0.01, r)
			if got := chiMean(mu, 0.01, r); math.Abs(got-want) > 1e-6*want {
				t.Errorf("r %d, λ %v: chiMean %v, series %v", r, lam, got, want)
			}
		}
	}
}
