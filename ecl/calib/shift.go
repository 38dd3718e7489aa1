package calib

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/ecl-go/ecl/ecl/baselines"
)

// DomainOptions configures the domain classifier behind the importance
// weights. Zero values mean the defaults.
type DomainOptions struct {
	L2   float64 // ridge penalty of the logistic regression (default 1e-3)
	Clip float64 // upper clip of the weights (default 20)
	// Balance resamples the smaller domain to the size of the larger before
	// fitting, as TransCal does (the weights then omit the n_s/n_t prior).
	Balance bool
	Folds   int    // cross-fitting folds of the AUC (default 5)
	Seed    uint64 // seeds the folds and the resampling
}

func (o DomainOptions) withDefaults() DomainOptions {
	if o.L2 == 0 {
		o.L2 = 1e-3
	}
	if o.Clip == 0 {
		o.Clip = 20
	}
	if o.Folds == 0 {
		o.Folds = 5
	}
	return o
}

// Quantile is one quantile of the importance weights.
type Quantile struct {
	Q float64 `json:"q"`
	W float64 `json:"w"`
}

// ShiftDiagnostics describes how far apart the domains are and how usable
// the importance weights of the source samples are.
type ShiftDiagnostics struct {
	// AUC of the domain classifier (target against source), each sample
	// scored by a classifier fitted without its fold: 0.5 when the domains
	// cannot be told apart, 1 when they are separable (every weight then
	// sits at 0 or at the clip).
	AUC   float64 `json:"auc"`
	Folds int     `json:"folds"`
	// Quantiles of the unclipped weights p_t/p_s of the source samples.
	Quantiles []Quantile `json:"weight_quantiles"`
	Mean      float64    `json:"weight_mean"` // of the clipped weights
	// ESS is Kish's effective sample size (Σw)²/Σw² of the clipped
	// weights, and ESSFraction its share of the source samples.
	ESS         float64 `json:"ess"`
	ESSFraction float64 `json:"ess_fraction"`
	Clip        float64 `json:"clip"`
	ClipRate    float64 `json:"clip_rate"` // share of source weights above Clip
}

// DomainWeights fits a logistic domain classifier on source and target rows
// of d features (standardised with the pooled mean and deviation) and
// returns the clipped importance weights w = P(t|x)/P(s|x)·n_s/n_t of the
// source rows with the diagnostics of the shift.
func DomainWeights(src, tgt []float64, d int, o DomainOptions) ([]float64, ShiftDiagnostics, error) {
	f, err := fitDomain("DomainWeights", src, tgt, d, o)
	if err != nil {
		return nil, ShiftDiagnostics{}, err
	}
	raw, w, ns := f.raw, f.w, len(f.w)
	clipped := 0
	for _, r := range raw {
		if r > f.o.Clip {
			clipped++
		}
	}
	diag := ShiftDiagnostics{Folds: f.o.Folds, Clip: f.o.Clip, ClipRate: float64(clipped) / float64(ns)}
	if diag.AUC, err = crossFittedAUC(src, tgt, d, f.mean, f.scale, f.o, f.rng); err != nil {
		return nil, ShiftDiagnostics{}, err
	}
	sorted := slices.Clone(raw)
	slices.Sort(sorted)
	for _, q := range []float64{0, 0.05, 0.25, 0.5, 0.75, 0.95, 1} {
		diag.Quantiles = append(diag.Quantiles, Quantile{q, sorted[int(math.Round(q*float64(ns-1)))]})
	}
	sum, sq := 0.0, 0.0
	for _, v := range w {
		sum += v
		sq += v * v
	}
	diag.Mean = sum / float64(ns)
	if sq > 0 {
		diag.ESS = sum * sum / sq
	}
	diag.ESSFraction = diag.ESS / float64(ns)
	return w, diag, nil
}

// ImportanceWeights is DomainWeights without the diagnostics: the same
// weights from the same one fit, without the cross-fitted fits of the AUC
// (TransCal's balanced weights, whose diagnostics nothing reports).
func ImportanceWeights(src, tgt []float64, d int, o DomainOptions) ([]float64, error) {
	f, err := fitDomain("ImportanceWeights", src, tgt, d, o)
	if err != nil {
		return nil, err
	}
	return f.w, nil
}

// domainFit is what DomainWeights and ImportanceWeights share: the
// options with their defaults, the pooled standardisation, the random
// stream after the balancing's draws, and each source row's density
// ratio, raw and clipped.
type domainFit struct {
	o           DomainOptions
	mean, scale []float64
	rng         *rand.Rand
	raw, w      []float64
}

func fitDomain(op string, src, tgt []float64, d int, o DomainOptions) (*domainFit, error) {
	o = o.withDefaults()
	ns, nt := len(src)/max(d, 1), len(tgt)/max(d, 1)
	if d < 1 || ns*d != len(src) || nt*d != len(tgt) || ns < 2 || nt < 2 {
		return nil, fmt.Errorf("calib.%s: %d source and %d target values of %d features (need 2 rows each)", op, len(src), len(tgt), d)
	}
	if o.Clip < 1 || o.Folds < 2 || o.L2 < 0 {
		return nil, fmt.Errorf("calib.%s: clip %v (≥ 1), folds %d (≥ 2), L2 %v (≥ 0)", op, o.Clip, o.Folds, o.L2)
	}
	f := &domainFit{o: o, rng: rand.New(rand.NewPCG(o.Seed, 0xd0)), raw: make([]float64, ns), w: make([]float64, ns)}
	f.mean, f.scale = pooledMeanScale(src, tgt, d)
	rows := baselines.DomainRows{Source: src, Target: tgt, D: d, Mean: f.mean, Scale: f.scale}
	if o.Balance {
		rows.Balance(f.rng)
	}
	m, err := rows.Fit(o.L2)
	if err != nil {
		return nil, fmt.Errorf("calib.%s: %w", op, err)
	}
	for i := range ns {
		x := src[i*d : (i+1)*d]
		f.raw[i], f.w[i] = m.Ratio(x, 0, 0), m.Ratio(x, 0, o.Clip)
	}
	return f, nil
}

// pooledMeanScale returns the pooled mean and standard deviation of every
// column of both row sets (1 for a column with no spread).
func pooledMeanScale(src, tgt []float64, d int) (mean, scale []float64) {
	n := float64((len(src) + len(tgt)) / d)
	mean, scale = make([]float64, d), make([]float64, d)
	for _, x := range [][]float64{src, tgt} {
		for i, v := range x {
			mean[i%d] += v / n
		}
	}
	for _, x := range [][]float64{src, tgt} {
		for i, v := range x {
			scale[i%d] += (v - mean[i%d]) * (v - mean[i%d]) / n
		}
	}
	for j, v := range scale {
		if scale[j] = math.Sqrt(v); scale[j] == 0 {
			scale[j] = 1
		}
	}
	return mean, scale
}

// crossFittedAUC scores every row with a domain classifier fitted on the
// other folds and returns the AUC of those scores (target positive).
func crossFittedAUC(src, tgt []float64, d int, mean, scale []float64, o DomainOptions, rng *rand.Rand) (float64, error) {
	ns, nt := len(src)/d, len(tgt)/d
	fold := func(n int) []int {
		f := make([]int, n)
		for i, j := range rng.Perm(n) {
			f[j] = i % o.Folds
		}
		return f
	}
	fsrc, ftgt := fold(ns), fold(nt)
	ss, st := make([]float64, ns), make([]float64, nt)
	for k := range o.Folds {
		// The other folds count once, this one not at all.
		train := func(f []int) []float64 {
			c := make([]float64, len(f))
			for i, g := range f {
				if g != k {
					c[i] = 1
				}
			}
			return c
		}
		rows := baselines.DomainRows{Source: src, Target: tgt, D: d, Mean: mean, Scale: scale, SourceCount: train(fsrc), TargetCount: train(ftgt)}
		if o.Balance {
			rows.Balance(rng)
		}
		m, err := rows.Fit(o.L2)
		if err != nil {
			return 0, fmt.Errorf("calib.DomainWeights: fold %d: %w", k, err)
		}
		for _, set := range []struct {
			x      []float64
			f      []int
			scores []float64
		}{{src, fsrc, ss}, {tgt, ftgt, st}} {
			for i, g := range set.f {
				if g == k {
					set.scores[i] = m.Ratio(set.x[i*d:(i+1)*d], 0, 0)
				}
			}
		}
	}
	return AUC(ss, st), nil
}

// AUC is the probability that a random positive scores above a random
// negative, ties counting one half (the Mann–Whitney statistic).
func AUC(neg, pos []float64) float64 {
	type scored struct {
		s   float64
		pos bool
	}
	all := make([]scored, 0, len(neg)+len(pos))
	for _, s := range neg {
		all = append(all, scored{s, false})
	}
	for _, s := range pos {
		all = append(all, scored{s, true})
	}
	slices.SortFunc(all, func(a, b scored) int {
		switch {
		case a.s < b.s:
			return -1
		case a.s > b.s:
			return 1
		}
		return 0
	})
	// Sum of the positives' mid-ranks.
	rankSum := 0.0
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].s == all[i].s {
			j++
		}
		mid := float64(i+j+1) / 2 // ranks i+1..j
		for _, a := range all[i:j] {
			if a.pos {
				rankSum += mid
			}
		}
		i = j
	}
	np, nn := float64(len(pos)), float64(len(neg))
	return (rankSum - np*(np+1)/2) / (np * nn)
}
