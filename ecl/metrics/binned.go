package metrics

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/ecl-go/ecl/ecl/bins"
	"github.com/ecl-go/ecl/tensor"
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

// MaxBins is the most bins the commands accept for one error (a flag is
// checked against it before anything is allocated).
const MaxBins = 100_000

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
	// Convention chooses another library's binning rules (edges, where a
	// confidence of exactly 0 or 1 goes); see docs/conventions.md. The
	// zero value is this project's.
	Convention Convention
}

// Convention is a library's rule for placing confidences in bins.
type Convention int

const (
	// Ours: bins (lo, hi], the first closed at 0; edges as numpy.linspace.
	Ours Convention = iota
	// ReferenceECL: the ECL reference metrics.py, as Options.Reference.
	ReferenceECL
	// TorchMetrics: bins [lo, hi) (torch.bucketize(right=True) − 1 on
	// linspace(0, 1, B+1)); a confidence of exactly 1 gets a bin of its own,
	// an extra bin [1, 1] after the B others.
	TorchMetrics
	// NetCal: confidences clipped to [ε, 1−ε] (ε = 2⁻⁵²), then numpy
	// histogram bins [lo, hi), the last closed; equal-mass edges are
	// numpy.quantile values with the outer edges 0 and 1.
	NetCal
	// Kumar: Kumar et al.'s verified_calibration: bins (lo, hi] located by
	// searchsorted on the upper edges i/B (division, not i·(1/B)), so 0 is
	// in the first bin; equal-mass bins are consecutive chunks of
	// ⌈n/B⌉ sorted values split at midpoints, duplicate edges merged.
	Kumar
)

// Conventions lists the conventions by their command-line names.
var Conventions = map[string]Convention{"ours": Ours, "reference": ReferenceECL, "torchmetrics": TorchMetrics, "netcal": NetCal, "kumar": Kumar}

// ConventionOptions returns the defaults of a library: 15 bins, L1, and its
// minimum count (the ECL reference drops bins of at most 5 samples; netcal's
// default sample_threshold of 1 drops only empty bins).
func ConventionOptions(c Convention) Options {
	if c == ReferenceECL {
		o := ReferenceOptions()
		o.Convention = c
		return o
	}
	return Options{Bins: DefaultBins, Convention: c}
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
	case o.Convention < Ours || o.Convention > Kumar:
		return o, fmt.Errorf("metrics.%s: unknown convention %d", fn, o.Convention)
	case o.Reference && o.Convention != Ours && o.Convention != ReferenceECL:
		return o, fmt.Errorf("metrics.%s: Reference with convention %d", fn, o.Convention)
	}
	if o.Convention == ReferenceECL {
		o.Reference = true
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
	edges, index := binning(conf, o)
	res := Calibration{N: len(conf), Bins: make([]Bin, binCount(edges, o))}
	for i, c := range conf {
		j := index(c)
		if j < 0 {
			res.Unbinned++
			continue
		}
		b := &res.Bins[j]
		b.Count++
		b.Conf += c
		b.Acc += outcome[i]
	}
	finish(&res, edges, o)
	return res
}

// binnedColumns sets cals[c] to binned(column c0+c of probs, 1[y = c0+c], o)
// for fixed (equal-width) edges, reading the rows once, without copying
// the columns: each class's sums are added in the order of the samples,
// as binned adds them.
func binnedColumns(probs []float64, k int, labels []int, o Options, cals []Calibration, c0 int) {
	edges, index := binning(nil, o)
	for c := range cals {
		cals[c] = Calibration{N: len(labels), Bins: make([]Bin, binCount(edges, o))}
	}
	for i, y := range labels {
		for c, p := range probs[i*k+c0 : i*k+c0+len(cals)] {
			cal := &cals[c]
			j := index(p)
			if j < 0 {
				cal.Unbinned++
				continue
			}
			b := &cal.Bins[j]
			b.Count++
			b.Conf += p
			if y == c0+c {
				b.Acc++
			}
		}
	}
	for c := range cals {
		finish(&cals[c], edges, o)
	}
}

// binCount is the number of bins of edges under o's convention.
func binCount(edges []float64, o Options) int {
	if o.Convention == TorchMetrics {
		return len(edges) // the bin [1, 1]
	}
	return len(edges) - 1
}

// finish turns res's per-bin sums of confidences (Conf) and outcomes (Acc)
// into means, sets the bins' edges and Used, and res.Error.
func finish(res *Calibration, edges []float64, o Options) {
	agg := aggregator{norm: o.Norm, n: float64(res.N)}
	for j := range res.Bins {
		b := &res.Bins[j]
		b.Lo, b.Hi = 1, 1
		if j < len(edges)-1 {
			b.Lo, b.Hi = edges[j], edges[j+1]
		}
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
}

// netcalEps is numpy's float64 machine epsilon, netcal's clipping margin.
const netcalEps = 0x1p-52

// binning returns o's bin edges for conf and the function placing one
// confidence among them (−1: no bin). The confidence averaged in a bin stays
// the unclipped one for every convention (netcal averages the clipped
// values; the difference is at most 2⁻⁵² per sample).
func binning(conf []float64, o Options) ([]float64, func(float64) int) {
	var edges []float64
	switch {
	case o.Scheme == EqualMass && o.Convention == Kumar:
		edges = kumarMassEdges(conf, o.Bins)
	case o.Scheme == EqualMass && o.Convention == NetCal:
		edges = quantileEdges(conf, o.Bins)
	case o.Scheme == EqualMass:
		edges = bins.EqualMassEdges(conf, o.Bins)
	case o.Convention == Kumar:
		edges = make([]float64, o.Bins+1)
		for i := range edges {
			edges[i] = float64(i) / float64(o.Bins)
		}
	default:
		edges = bins.Edges(o.Bins)
	}
	b := len(edges) - 1
	// atOrBelow counts the inner and upper edges ≤ x: the index of a bin
	// [lo, hi).
	atOrBelow := func(x float64) int { return sort.Search(b, func(i int) bool { return edges[i+1] > x }) }
	switch {
	case o.Reference:
		return edges, func(x float64) int { return bins.IndexStrict(x, edges) }
	case o.Convention == TorchMetrics:
		return edges, func(x float64) int {
			if x >= edges[b] {
				return b // the bin [1, 1]
			}
			return atOrBelow(x)
		}
	case o.Convention == NetCal:
		return edges, func(x float64) int { return min(atOrBelow(min(max(x, netcalEps), 1-netcalEps)), b-1) }
	}
	return edges, func(x float64) int { return bins.Index(x, edges) }
}

// kumarMassEdges are verified_calibration's get_equal_bins edges: sorted
// values cut into chunks of ⌈n/b⌉, an edge at the midpoint between chunks,
// then 1; duplicates merged (fewer bins when values repeat or n < b·⌈n/b⌉).
func kumarMassEdges(conf []float64, b int) []float64 {
	s := slices.Sorted(slices.Values(conf))
	if len(s) == 0 {
		return bins.Edges(b)
	}
	part := (len(s) + b - 1) / b
	edges := []float64{0}
	for i := part; i < len(s); i += part {
		edges = append(edges, (s[i-1]+s[i])/2)
	}
	edges = append(edges, 1)
	return slices.Compact(edges)
}

// quantileEdges are netcal's equal-mass edges: numpy.quantile (linear
// interpolation) of conf at i/b, with the outer edges set to 0 and 1.
func quantileEdges(conf []float64, b int) []float64 {
	s := slices.Sorted(slices.Values(conf))
	edges := make([]float64, b+1)
	edges[b] = 1
	for i := 1; i < b && len(s) > 0; i++ {
		edges[i] = quantile(s, float64(i)/float64(b))
	}
	return edges
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
	// Blocks of 32 classes over the cores, each read a row at a time: with
	// fixed edges straight into the bins, with equal-mass edges (which
	// need each column whole) into columns first.
	const block = 32
	tensor.ParallelFor((k+block-1)/block, 40*len(labels)*block, func(lo, hi int) {
		for c0 := lo * block; c0 < min(hi*block, k); c0 += block {
			c1 := min(c0+block, k)
			if o.Scheme == EqualMass {
				for c, col := range columns(probs, k, labels, c0, c1) {
					res.Classes[c0+c] = binned(col.p, col.is, o)
				}
				continue
			}
			binnedColumns(probs, k, labels, o, res.Classes[c0:c1], c0)
		}
	})
	for _, cal := range res.Classes {
		res.Error += cal.Error
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
