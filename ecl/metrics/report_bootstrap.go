package metrics

import (
	"cmp"
	"math/rand/v2"
)

// KDERate is about how many units of N²K (N samples, K classes), the cost
// of ECE^KDE, one core does in a second.
const KDERate = 2.5e7

// KDENoInterval is BootstrapReport's note on why ECE^KDE gets no interval.
const KDENoInterval = "ECE^KDE has no interval: its smoothing bias at these sample sizes is several times its bootstrap spread, and bootstrap intervals around it covered the true error in 0 to 5% of simulated draws (metrics.TestKDEBootstrapIntervalMissesTheTruth)"

// BootstrapReport fills r's 95% intervals of every metric, r having been
// computed by NewReport from probs1 [N, k] (and of the differences with
// probs2 in r.Compare, when probs2 is not nil), from reps resamples drawn
// from seed; both sets of predictions see the same resamples. Means
// (accuracy, NLL, Brier) get percentile intervals; the L1 binned errors
// L1Interval around their bias-corrected estimates; the L2 error
// L2Interval, its debiased estimate DebiasedInterval; MCE MCEInterval (no
// bootstrap); ECE^KDE none, with a note saying why (KDENoInterval).
// Differences get basic intervals. With equal-width bins each sample's
// bins are found once and a resample only sums them (resampled); equal-mass
// bins, whose edges move with the resample, recompute every metric on the
// resampled rows.
// It returns notes on what was left out.
func BootstrapReport(r *Report, probs1, probs2 []float64, k int, labels []int, o Options, canonical bool, reps int, seed uint64) ([]string, error) {
	n := len(labels)
	var notes []string
	if r.KDE != nil {
		notes = append(notes, KDENoInterval)
	}
	vals1, vals2 := map[string][]float64{}, map[string][]float64{}
	var firstErr error
	collect := func(dst map[string][]float64, probs []float64, idx []int, h float64) {
		pp, y := Subset(probs, k, labels, idx)
		s, err := statistics(pp, k, y, o, h, canonical)
		if err != nil {
			firstErr = cmp.Or(firstErr, err)
			return
		}
		for name, v := range s {
			dst[name] = append(dst[name], v)
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	if fastResample(o) {
		var sets []*resampled
		for _, p := range [][]float64{probs1, probs2} {
			if p == nil {
				continue
			}
			s, err := newResampled(p, k, labels, o, canonical)
			if err != nil {
				return nil, err
			}
			sets = append(sets, s)
		}
		dst := []map[string][]float64{vals1, vals2}
		resampleAll(sets, n, reps, rng, func(set int, st map[string]float64) {
			for name, v := range st {
				dst[set][name] = append(dst[set][name], v)
			}
		})
	} else {
		Resample(n, reps, rng, func(_ int, idx []int) {
			collect(vals1, probs1, idx, 0)
			if probs2 != nil {
				collect(vals2, probs2, idx, 0)
			}
		})
	}
	if firstErr != nil {
		return nil, firstErr
	}
	full, err := statistics(probs1, k, labels, o, 0, canonical)
	if err != nil {
		return nil, err
	}
	const level = 0.95
	r.CI, r.CIMethod = map[string][2]float64{}, map[string]string{}
	set := func(name, method string, lo, hi float64) {
		r.CI[name], r.CIMethod[name] = [2]float64{lo, hi}, method
	}
	for _, name := range []string{"acc", "nll", "brier"} {
		lo, hi := PercentileInterval(vals1[name], level)
		set(name, "percentile", lo, hi)
	}
	for _, name := range []string{"ece", "cwece", "canonical_ece"} {
		if _, ok := vals1[name]; ok {
			lo, hi := L1Interval(full["_deb_"+name], vals1["_deb_"+name], full["_sq_"+name], vals1["_sq_"+name], level)
			set(name, "bias-corrected normal (metrics.L1Interval)", lo, hi)
		}
	}
	lo, hi := L2Interval(full["_sq_ece"], vals1["_sq_ece"], level)
	set("ece_l2", "bias-corrected normal of the root (metrics.L2Interval)", lo, hi)
	lo, hi = DebiasedInterval(full["_sq_ece"], vals1["_sq_ece"], level)
	set("debiased_ece_l2", "debiased normal of the square (metrics.DebiasedInterval)", lo, hi)
	top, err := ECE(probs1, k, labels, o)
	if err != nil {
		return nil, err
	}
	lo, hi = MCEInterval(top, level)
	set("mce", "Wilson per bin, Bonferroni over bins (metrics.MCEInterval)", lo, hi)
	if probs2 != nil && r.Compare != nil {
		c := r.Compare
		c.DiffCI = map[string][2]float64{}
		for name, d := range c.Diff {
			a, b := vals1[name], vals2[name]
			if len(a) == 0 || len(a) != len(b) {
				continue
			}
			diff := make([]float64, len(a))
			for i := range a {
				diff[i] = a[i] - b[i]
			}
			lo, hi := BasicInterval(d, diff, level)
			c.DiffCI[name] = [2]float64{lo, hi}
		}
	}
	return notes, nil
}
