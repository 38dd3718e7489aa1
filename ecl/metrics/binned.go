package metrics

import (
	"fmt"
	"math"

	"github.com/ecl-go/ecl/ecl/bins"
)

// Scheme chooses how bins are placed on [0, 1].
type Scheme int

const (
	// EqualWidth bins are (i/B, (i+1)/B].
	EqualWidth Scheme = iota
	// EqualMass bins hold (nearly) equal numbers of samples (bins.EqualMassEdges).
	EqualMass
)

// Norm chooses how per-bin gaps are combined.
type Norm int

const (
	// L1 is Σ_m (|B_m|/n)·|gap_m|, the usual ECE.
	L1 Norm = iota
	// L2 is the root of Σ_m (|B_m|/n)·gap_m².
	L2
	// Max is max_m |gap_m| over non-empty bins (MCE).
	Max
)

// DefaultBins is the number of bins used when Options.Bins is 0.
const DefaultBins = 15

// Options configures the binned metrics. The zero value is the paper's
// setting: 15 equal-width bins, L1, no minimum count, mean over classes.
type Options struct {
	Bins   int // number of bins; 0 means DefaultBins (canonical: requested anchors)
	Scheme Scheme
	Norm   Norm
	// MinCount drops bins holding at most MinCount samples from ECE and
	// class-wise ECE (the divisor stays n); the reference uses 5, 0 is off.
	// The canonical error ignores it, as the reference does.
	MinCount int
	// Reference selects the reference metrics.py conventions: a value of
	// exactly 0 (or outside the outer edges) falls in no bin but still counts
	// in n, and canonical anchors are computed in float32.
	Reference bool
	// SumClasses sums class-wise errors over classes instead of averaging.
	SumClasses bool
}

// ReferenceOptions returns the settings of the reference metrics.py:
// 15 equal-width bins, L1, MinCount 5, Reference conventions.
func ReferenceOptions() Options {
	return Options{Bins: DefaultBins, MinCount: 5, Reference: true}
}

func (o Options) check(fn string) (Options, error) {
	if o.Bins == 0 {
		o.Bins = DefaultBins
	}
	switch {
	case o.Bins < 0:
		return o, fmt.Errorf("metrics.%s: %d bins", fn, o.Bins)
	case o.MinCount < 0:
		return o, fmt.Errorf("metrics.%s: negative MinCount %d", fn, o.MinCount)
	case o.Scheme != EqualWidth && o.Scheme != EqualMass:
		return o, fmt.Errorf("metrics.%s: unknown binning scheme %d", fn, o.Scheme)
	case o.Norm != L1 && o.Norm != L2 && o.Norm != Max:
		return o, fmt.Errorf("metrics.%s: unknown norm %d", fn, o.Norm)
	}
	return o, nil
}

// Bin holds one bin's statistics.
type Bin struct {
	Lo, Hi float64 // the bin is (Lo, Hi]
	Count  int
	Conf   float64 // mean confidence (0 when empty)
	Acc    float64 // mean outcome: accuracy or label frequency (0 when empty)
	Used   bool    // non-empty and above MinCount, so part of the error
}

// Gap returns Conf − Acc: positive when over-confident, negative when
// under-confident.
func (b Bin) Gap() float64 { return b.Conf - b.Acc }

// Calibration is a binned calibration error with its bins.
type Calibration struct {
	Error    float64
	N        int // samples, the divisor of the bin weights
	Unbinned int // samples in no bin (Reference convention: confidence 0)
	Bins     []Bin
}

// binned computes the binned calibration error of confidences against 0/1
// outcomes; o has been checked.
func binned(conf, outcome []float64, o Options) Calibration {
	var edges []float64
	if o.Scheme == EqualMass {
		edges = bins.EqualMassEdges(conf, o.Bins)
	} else {
		edges = bins.Edges(o.Bins)
	}
	index := bins.Index
	if o.Reference {
		index = bins.IndexStrict
	}
	res := Calibration{N: len(conf), Bins: make([]Bin, o.Bins)}
	for i, c := range conf {
		j := index(c, edges)
		if j < 0 {
			res.Unbinned++
			continue
		}
		b := &res.Bins[j]
		b.Count++
		b.Conf += c
		b.Acc += outcome[i]
	}
	agg := aggregator{norm: o.Norm, n: float64(res.N)}
	for j := range res.Bins {
		b := &res.Bins[j]
		b.Lo, b.Hi = edges[j], edges[j+1]
		if b.Count == 0 {
			continue
		}
		b.Conf /= float64(b.Count)
		b.Acc /= float64(b.Count)
		b.Used = b.Count > o.MinCount
		if b.Used {
			agg.add(b.Count, b.Gap())
		}
	}
	res.Error = agg.value()
	return res
}

// ECE returns the top-label calibration error: bins on the top confidence
// max_k S against the correctness 1[argmax S = y] (ties: first class).
func ECE(probs []float64, k int, labels []int, o Options) (Calibration, error) {
	o, err := o.check("ECE")
	if err != nil {
		return Calibration{}, err
	}
	if _, err := validate("ECE", probs, k, labels, k); err != nil {
		return Calibration{}, err
	}
	conf, correct := TopLabel(probs, k, labels)
	return binned(conf, correct, o), nil
}

// BinaryECE returns the calibration error of p = P(y = 1) against labels in
// {0, 1}.
func BinaryECE(p []float64, labels []int, o Options) (Calibration, error) {
	o, err := o.check("BinaryECE")
	if err != nil {
		return Calibration{}, err
	}
	if _, err := validate("BinaryECE", p, 1, labels, 2); err != nil {
		return Calibration{}, err
	}
	outcome := make([]float64, len(labels))
	for i, y := range labels {
		outcome[i] = float64(y)
	}
	return binned(p, outcome, o), nil
}

// Classwise is a class-wise calibration error with each class's bins.
type Classwise struct {
	Error   float64 // mean (or sum, Options.SumClasses) of the class errors
	Classes []Calibration
}

// ClasswiseECE returns the class-wise calibration error: for each class c,
// bins on S_c against 1[y = c], averaged (or summed) over classes.
func ClasswiseECE(probs []float64, k int, labels []int, o Options) (Classwise, error) {
	o, err := o.check("ClasswiseECE")
	if err != nil {
		return Classwise{}, err
	}
	if _, err := validate("ClasswiseECE", probs, k, labels, k); err != nil {
		return Classwise{}, err
	}
	res := Classwise{Classes: make([]Calibration, k)}
	for c := range k {
		p, is := column(probs, k, labels, c)
		res.Classes[c] = binned(p, is, o)
		res.Error += res.Classes[c].Error
	}
	if !o.SumClasses {
		res.Error /= float64(k)
	}
	return res, nil
}

// DebiasedL2ECE returns the debiased top-label L2 calibration error of Kumar
// et al. (2019): sqrt(max(0, DebiasedSquared(cal))) for the top-label bins.
// Options.Norm is ignored; Kumar et al. use equal-mass bins.
func DebiasedL2ECE(probs []float64, k int, labels []int, o Options) (float64, error) {
	o, err := o.check("DebiasedL2ECE")
	if err != nil {
		return 0, err
	}
	if _, err := validate("DebiasedL2ECE", probs, k, labels, k); err != nil {
		return 0, err
	}
	conf, correct := TopLabel(probs, k, labels)
	return math.Sqrt(max(DebiasedSquared(binned(conf, correct, o)), 0)), nil
}

// DebiasedSquared returns Kumar et al.'s (2019) unbiased estimate of the
// squared L2 calibration error of cal's bins:
// Σ_m (|B_m|/n)·(gap_m² − acc_m(1−acc_m)/(|B_m|−1)), where bins with fewer
// than 2 samples (or not Used) contribute nothing. It can be negative.
func DebiasedSquared(cal Calibration) float64 {
	sq := 0.0
	for _, b := range cal.Bins {
		if !b.Used || b.Count < 2 {
			continue
		}
		bias := b.Acc * (1 - b.Acc) / float64(b.Count-1)
		sq += float64(b.Count) / float64(cal.N) * (b.Gap()*b.Gap() - bias)
	}
	return sq
}

// DebiasedSquaredClasswise is the mean (or sum, as the error) over classes of
// DebiasedSquared.
func DebiasedSquaredClasswise(cw Classwise, sum bool) float64 {
	return overClasses(cw, sum, DebiasedSquared)
}

// overClasses is the mean (or sum) of f over cw's classes.
func overClasses(cw Classwise, sum bool, f func(Calibration) float64) float64 {
	s := 0.0
	for _, c := range cw.Classes {
		s += f(c)
	}
	if !sum {
		s /= float64(len(cw.Classes))
	}
	return s
}
