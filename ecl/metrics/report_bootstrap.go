package metrics

import (
	"cmp"
	"fmt"
	"math/rand/v2"
)

// The cost of ECE^KDE in BootstrapReport, in units of N²K (N samples, K
// classes).
const (
	// KDERate is about how many units one core does in a second.
	KDERate = 2.5e7
	// KDEBootWork caps the work of the ECE^KDE resamples (about a minute).
	KDEBootWork = 1.5e9
	// MinKDEReps is the fewest resamples an ECE^KDE interval is built from.
	MinKDEReps = 100
)

// BootstrapReport fills r's 95% intervals of every metric, r having been
// computed by NewReport from probs1 [N, k] (and of the differences with
// probs2 in r.Compare, when probs2 is not nil), from reps resamples drawn
// from seed; both sets of predictions see the same resamples. Means (accuracy, NLL, Brier) get percentile intervals; the L1
// binned errors L1Interval around their bias-corrected estimates;
// the L2 errors DebiasedInterval; MCE ErrorInterval; ECE^KDE
// basic intervals on the first resamples within KDEBootWork (with the full
// sample's bandwidth), or none, with a note. Differences get basic
// intervals.
// It returns notes on what was left out.
func BootstrapReport(r *Report, probs1, probs2 []float64, k int, labels []int, o Options, canonical bool, reps int, seed uint64) ([]string, error) {
	n := len(labels)
	var notes []string
	kdeReps := 0
	if r.KDE != nil {
		kdeReps = min(reps, int(KDEBootWork/(float64(n)*float64(n)*float64(k))))
		if kdeReps < MinKDEReps {
			notes = append(notes, fmt.Sprintf("ECE^KDE intervals skipped: fewer than %d resamples fit the budget of %.3g N²K units (about %.0f s)", MinKDEReps, KDEBootWork, KDEBootWork/KDERate))
			kdeReps = 0
		} else if kdeReps < reps {
			notes = append(notes, fmt.Sprintf("ECE^KDE intervals from the first %d of the %d resamples (cost O(N²K) each)", kdeReps, reps))
		}
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
	Resample(n, reps, rand.New(rand.NewPCG(seed, 0)), func(i int, idx []int) {
		h := 0.0
		if i < kdeReps {
			h = r.KDEBandwidth
		}
		collect(vals1, probs1, idx, h)
		if probs2 != nil {
			collect(vals2, probs2, idx, h)
		}
	})
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
	lo, hi := DebiasedInterval(full["_sq_ece"], vals1["_sq_ece"], level)
	set("ece_l2", "debiased normal (metrics.DebiasedInterval)", lo, hi)
	set("debiased_ece_l2", "debiased normal (metrics.DebiasedInterval)", lo, hi)
	lo, hi = ErrorInterval(full["mce"], vals1["mce"], full["_sq_ece"], vals1["_sq_ece"], level)
	set("mce", "basic (metrics.ErrorInterval)", lo, hi)
	for _, m := range kdeModes {
		if v, ok := vals1["ece_kde_"+m.name]; ok {
			lo, hi := BasicInterval(r.KDE[m.name], v, level)
			set("ece_kde_"+m.name, fmt.Sprintf("basic, %d resamples, fixed bandwidth", len(v)), max(lo, 0), max(hi, 0))
		}
	}
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
