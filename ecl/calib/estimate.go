package calib

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ecl-go/ecl/ecl/baselines"
	"github.com/ecl-go/ecl/ecl/bins"
	"github.com/ecl-go/ecl/ecl/metrics"
)

// WeightedECE is the top-label ECE with per-sample weights: b equal-width
// bins (lo, hi] on the top confidence, the first closed at 0 (as
// metrics.ECE), each bin's weighted mean confidence against its weighted
// accuracy, weighted by its share of the total weight. With importance
// weights p_t/p_s on labelled source samples it estimates the target's ECE
// under covariate shift; with w nil it is metrics.ECE.
func WeightedECE(probs []float64, k int, labels []int, w []float64, b int) (float64, error) {
	n, err := checkScores("WeightedECE", probs, k, labels)
	if err != nil {
		return 0, err
	}
	if err := checkWeights("WeightedECE", w, n); err != nil {
		return 0, err
	}
	if b < 1 {
		return 0, fmt.Errorf("calib.WeightedECE: %d bins", b)
	}
	conf, correct := metrics.TopLabel(probs, k, labels)
	return topLabelECE(conf, correct, w, b), nil
}

// topLabelECE is WeightedECE of the rows' top-label confidences and
// correctness (1 or 0).
func topLabelECE(conf, correct, w []float64, b int) float64 {
	mass, sc, sa := make([]float64, b), make([]float64, b), make([]float64, b)
	total := 0.0
	for i, c := range conf {
		wi := 1.0
		if w != nil {
			wi = w[i]
		}
		j := bins.EqualWidth(c, b)
		mass[j] += wi
		sc[j] += wi * c
		sa[j] += wi * correct[i]
		total += wi
	}
	e := 0.0
	for j := range mass {
		if mass[j] > 0 {
			e += math.Abs(sc[j]-sa[j]) / total
		}
	}
	return e
}

// Interval is an estimate with its bootstrap interval. Corrected is the
// bootstrap bias-corrected estimate 2·Value − mean of the resampled values
// (floored at 0), near the interval's centre.
type Interval struct {
	Value     float64 `json:"value"`
	Corrected float64 `json:"bias_corrected"`
	Lo        float64 `json:"lo"`
	Hi        float64 `json:"hi"`
	Level     float64 `json:"level"`
	Reps      int     `json:"reps"`
}

// ECEInterval is WeightedECE with a basic (reverse-percentile) bootstrap
// interval: rows are resampled with their weights, and with q_lo, q_hi the
// percentiles of the resampled values the interval is
// [2·value − q_hi, 2·value − q_lo], floored at 0. The binned ECE is biased
// upwards, more so on a resample than on the sample; the basic interval
// carries that bias back instead of adding it, so it does not lie above its
// own estimate as a percentile interval does; it may lie below the raw
// estimate, around the bias-corrected one. The importance weights are
// held fixed (the domain classifier is not refitted per resample). reps 0
// gives the value alone.
func ECEInterval(probs []float64, k int, labels []int, w []float64, b, reps int, level float64, seed uint64) (Interval, error) {
	if _, err := checkScores("ECEInterval", probs, k, labels); err != nil {
		return Interval{}, err
	}
	conf, correct := metrics.TopLabel(probs, k, labels)
	return TopLabelInterval(conf, correct, w, b, reps, level, seed)
}

// TopLabelInterval is ECEInterval of rows given by their top-label
// confidences and correctness (1 or 0), as ApplyTopLabel and CrossFit
// return them.
func TopLabelInterval(conf, correct, w []float64, b, reps int, level float64, seed uint64) (Interval, error) {
	if len(correct) != len(conf) {
		return Interval{}, fmt.Errorf("calib.ECEInterval: %d confidences, %d correctness values", len(conf), len(correct))
	}
	if err := checkWeights("ECEInterval", w, len(conf)); err != nil {
		return Interval{}, err
	}
	if b < 1 {
		return Interval{}, fmt.Errorf("calib.ECEInterval: %d bins", b)
	}
	v := topLabelECE(conf, correct, w, b)
	if reps == 0 {
		return Interval{Value: v, Corrected: v, Lo: v, Hi: v}, nil
	}
	if reps < 0 || !(level > 0 && level < 1) {
		return Interval{}, fmt.Errorf("calib.ECEInterval: %d resamples at level %v", reps, level)
	}
	// Each sample's bin, weight, weighted confidence and correctness once.
	// A resample counts how often it drew each sample, then sums the
	// samples in order, each times its count: no random reads of the
	// samples (at 10⁶ samples each was a cache and TLB miss).
	n := len(conf)
	bin, ws, wc, wa := make([]int32, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i, c := range conf {
		ws[i] = 1
		if w != nil {
			ws[i] = w[i]
		}
		bin[i], wc[i], wa[i] = int32(bins.EqualWidth(c, b)), ws[i]*c, ws[i]*correct[i]
	}
	drawn := make([]uint32, n)
	mass, sc, sa := make([]float64, b), make([]float64, b), make([]float64, b)
	vals := make([]float64, reps)
	metrics.Resample(n, reps, rand.New(rand.NewPCG(seed, 0xb007)), func(r int, idx []int) {
		clear(drawn)
		for _, i := range idx {
			drawn[i]++
		}
		clear(mass)
		clear(sc)
		clear(sa)
		for i, m := range drawn {
			f, j := float64(m), bin[i]
			mass[j] += f * ws[i]
			sc[j] += f * wc[i]
			sa[j] += f * wa[i]
		}
		total := 0.0
		for _, v := range mass {
			total += v
		}
		vals[r] = math.NaN()
		if total == 0 {
			return
		}
		e := 0.0
		for j := range mass {
			if mass[j] > 0 {
				e += math.Abs(sc[j]-sa[j]) / total
			}
		}
		vals[r] = e
	})
	lo, hi := metrics.BasicInterval(v, vals, level)
	iv := Interval{Value: v, Corrected: v, Lo: max(lo, 0), Hi: max(hi, 0), Level: level, Reps: reps}
	sum, count := 0.0, 0
	for _, e := range vals {
		if !math.IsNaN(e) {
			sum, count = sum+e, count+1
		}
	}
	if count > 0 {
		iv.Corrected = max(2*v-sum/float64(count), 0)
	}
	return iv, nil
}

// PseudoSet is a labelled pseudo-target set built from unlabelled target
// logits: its rows are Logits [len(Labels), k] or, where Logits is nil,
// the mixed logits λ·z_a + (1−λ)·z_b (λ = Lambda) of the rows a, b of
// Target for each of Pairs, which TopLabel makes a block at a time rather
// than holding them.
type PseudoSet struct {
	Logits []float64
	Labels []int
	Target []float64
	Pairs  [][2]int
	Lambda float64
}

// TopLabel is ApplyTopLabel of c on the set's rows, k classes, against its
// labels.
func (s PseudoSet) TopLabel(c Calibrator, k int) (conf, correct []float64, err error) {
	if s.Logits != nil || s.Pairs == nil {
		return ApplyTopLabel(c, s.Logits, k, s.Labels)
	}
	if len(s.Labels) != len(s.Pairs) {
		return nil, nil, fmt.Errorf("calib.PseudoSet.TopLabel: %d labels for %d pairs", len(s.Labels), len(s.Pairs))
	}
	buf := make([]float64, min(len(s.Pairs), topLabelRows)*k)
	return topLabelBlocks(c, len(s.Pairs), k, func(lo, hi int) ([]float64, []int) {
		x := buf[:(hi-lo)*k]
		baselines.MixPairs(x, s.Target, k, s.Pairs[lo:hi], s.Lambda)
		return x, s.Labels[lo:hi:hi]
	})
}

// PseudoTarget builds PseudoCal's pseudo-target set (Hu et al., 2024; the
// mixup of ecl/baselines.PseudoMixup, λ = 0.65, within shuffled batches)
// on the target logits themselves: each kept pair's mixed logits
// λ·z_a + (1−λ)·z_b stand for the model's output on the mixed input, which
// is exact only for a model linear in its input. The pseudo-label is the
// class of λ·p_a + (1−λ)·p_b. The ECE of a calibrator's output on this set
// is a label-free estimate of its target ECE.
func PseudoTarget(tgtLogits []float64, k, batch int, seed uint64) (PseudoSet, error) {
	if _, err := checkScores("PseudoTarget", tgtLogits, k, nil); err != nil {
		return PseudoSet{}, err
	}
	const lambda = 0.65
	probs := Softmax(tgtLogits, k)
	pairs, labels, err := baselines.PseudoPairs(probs, k, batch, lambda, false, rand.New(rand.NewPCG(seed, 0x9c)))
	if err != nil {
		return PseudoSet{}, fmt.Errorf("calib.PseudoTarget: %w", err)
	}
	if len(labels) == 0 {
		return PseudoSet{}, fmt.Errorf("calib.PseudoTarget: every target pair has the same predicted class")
	}
	return PseudoSet{Labels: labels, Target: tgtLogits, Pairs: pairs, Lambda: lambda}, nil
}
