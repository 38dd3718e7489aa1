package metrics

import (
	"math"
	"math/rand/v2"
	"testing"
)

// slopeData draws n two-class predictions with P(class 0) = c ~ U(0.5, 1)
// and P(y = 0 | c) = c − s·(c − 0.5): over-confident by s·(c − 0.5).
func slopeData(rng *rand.Rand, n int, s float64) ([]float64, []int) {
	probs, labels := make([]float64, 2*n), make([]int, n)
	for i := range n {
		c := 0.5 + 0.5*rng.Float64()
		probs[2*i], probs[2*i+1] = c, 1-c
		if rng.Float64() >= c-s*(c-0.5) {
			labels[i] = 1
		}
	}
	return probs, labels
}

// slopeTruth is the population top-label binned error of slopeData with b
// equal-width bins, worked out by hand: the confidence is U(0.5, 1) and the
// gap s·(c − 0.5) is linear and positive, so bin (lo, hi] ∩ [0.5, 1] of
// length ℓ has probability 2ℓ and mean gap s·(mid − 0.5) at its midpoint.
// l1 = Σ P·|gap|, l2 = √(Σ P·gap²). The class-wise error is l1 as well (class
// 1's probability 1 − c has gap −s·(c − 0.5) on the mirrored bins), and so
// is the canonical error divided by √2: for K = 2 the simplex anchors are
// the bin centres, so the nearest-anchor cells are the same bins and each
// bin's gap vector (g, −g) has norm √2·|g|.
func slopeTruth(s float64, b int) (l1, l2 float64) {
	for j := range b {
		lo, hi := max(float64(j)/float64(b), 0.5), float64(j+1)/float64(b)
		if hi <= lo {
			continue
		}
		p, g := 2*(hi-lo), s*((lo+hi)/2-0.5)
		l1 += p * math.Abs(g)
		l2 += p * g * g
	}
	return l1, math.Sqrt(l2)
}

func TestSlopeTruthByHand(t *testing.T) {
	// s = 0.1, 2 bins: all mass in (0.5, 1], mean gap 0.1·0.25.
	if l1, l2 := slopeTruth(0.1, 2); math.Abs(l1-0.025) > 1e-15 || math.Abs(l2-0.025) > 1e-15 {
		t.Errorf("2 bins: %v %v", l1, l2)
	}
	// 4 bins: (.5, .75] and (.75, 1], half the mass each, gaps .0125 and .0375.
	l1, l2 := slopeTruth(0.1, 4)
	if math.Abs(l1-0.025) > 1e-15 || math.Abs(l2-math.Sqrt(0.5*0.0125*0.0125+0.5*0.0375*0.0375)) > 1e-15 {
		t.Errorf("4 bins: %v %v", l1, l2)
	}
}

// TestIntervalCoverage draws data with a known binned calibration error many
// times and checks that the 95% intervals of ECE, class-wise ECE and
// canonical ECE (L1Interval) and of the L2 error (DebiasedInterval, and
// L2Interval as ece_l2_root) cover the
// truth at least 90% of the time (measured 93% to 100%; the same held at
// s = 0.3, n = 1000; s = 0.5, n = 2000; s = 0.2, n = 300), from perfectly calibrated (truth 0) to clearly over-confident;
// the percentile interval of ECE, for comparison, must do worse where the
// bias matters.
func TestIntervalCoverage(t *testing.T) {
	const (
		trials, reps = 300, 50
		level        = 0.95
	)
	o := Options{}
	for _, tc := range []struct {
		s       float64
		n       int
		seed    uint64
		pctMiss bool // the percentile interval is expected to fail here
	}{{0, 500, 1, true}, {0.1, 400, 2, true}, {0.3, 600, 3, false}} {
		l1, l2 := slopeTruth(tc.s, DefaultBins)
		truth := map[string]float64{"ece": l1, "ece_l2": l2, "ece_l2_root": l2, "cwece": l1, "canonical": math.Sqrt2 * l1}
		hits := map[string]int{}
		pctHits := 0
		rng := rand.New(rand.NewPCG(tc.seed, 99))
		for range trials {
			probs, labels := slopeData(rng, tc.n, tc.s)
			type stats struct{ plug, ece, cw, can, sq, cwSq, canSq float64 }
			eval := func(p []float64, y []int) stats {
				top := must[Calibration](t)(ECE(p, 2, y, o))
				cw := must[Classwise](t)(ClasswiseECE(p, 2, y, o))
				can := must[Canonical](t)(CanonicalECE(p, 2, y, o))
				return stats{top.Error, DebiasedL1(top), DebiasedL1Classwise(cw, false), DebiasedL1Canonical(can), DebiasedSquared(top), DebiasedSquaredClasswise(cw, false), DebiasedSquaredCanonical(can)}
			}
			top := must[Calibration](t)(ECE(probs, 2, labels, o))
			cw := must[Classwise](t)(ClasswiseECE(probs, 2, labels, o))
			can := must[Canonical](t)(CanonicalECE(probs, 2, labels, o))
			est := eval(probs, labels)
			bs := make([]stats, reps)
			Resample(tc.n, reps, rng, func(r int, idx []int) { bs[r] = eval(Subset(probs, 2, labels, idx)) })
			col := func(f func(stats) float64) []float64 {
				v := make([]float64, reps)
				for r, b := range bs {
					v[r] = f(b)
				}
				return v
			}
			sq, cwSq, canSq := col(func(s stats) float64 { return s.sq }), col(func(s stats) float64 { return s.cwSq }), col(func(s stats) float64 { return s.canSq })
			iv := map[string][2]float64{}
			eceVals := col(func(s stats) float64 { return s.ece })
			iv["ece"] = pair(L1Interval(DebiasedL1(top), eceVals, est.sq, sq, level))
			iv["ece_l2"] = pair(DebiasedInterval(est.sq, sq, level))
			iv["ece_l2_root"] = pair(L2Interval(est.sq, sq, level))
			iv["cwece"] = pair(L1Interval(DebiasedL1Classwise(cw, false), col(func(s stats) float64 { return s.cw }), est.cwSq, cwSq, level))
			iv["canonical"] = pair(L1Interval(DebiasedL1Canonical(can), col(func(s stats) float64 { return s.can }), est.canSq, canSq, level))
			for name, v := range iv {
				if v[0] <= truth[name] && truth[name] <= v[1] {
					hits[name]++
				}
			}
			if lo, hi := PercentileInterval(col(func(s stats) float64 { return s.plug }), level); lo <= l1 && l1 <= hi {
				pctHits++
			}
		}
		for name := range truth {
			cov := float64(hits[name]) / trials
			t.Logf("s = %.1f, n = %d: %s truth %.4f covered %.3f", tc.s, tc.n, name, truth[name], cov)
			if cov < 0.9 {
				t.Errorf("s = %.1f, n = %d: the 95%% interval of %s covers the truth %.4f in %.3f of %d draws, want ≥ 0.9", tc.s, tc.n, name, truth[name], cov, trials)
			}
		}
		pct := float64(pctHits) / trials
		t.Logf("s = %.1f, n = %d: percentile interval of ECE covered %.3f", tc.s, tc.n, pct)
		if tc.pctMiss && pct > 0.8 {
			t.Errorf("s = %.1f, n = %d: the percentile interval covered %.3f; the test no longer shows the bias it guards against", tc.s, tc.n, pct)
		}
	}
}

func pair(lo, hi float64) [2]float64 { return [2]float64{lo, hi} }
