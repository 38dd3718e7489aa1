package evaluate

import (
	"fmt"

	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/ecl/predict"
)

// Limits checked before anything is allocated.
const (
	// MaxClassBins caps K×bins, the bins of the class-wise error.
	MaxClassBins = 2_000_000
	// KDEAutoWork is the N²K up to which KDEAuto computes ECE^KDE (about
	// 2 s at metrics.KDERate).
	KDEAutoWork = 5e7
)

// KDE says whether to compute ECE^KDE.
type KDE int

const (
	// KDEAuto computes it while N²K ≤ KDEAutoWork, and notes it skipped
	// otherwise.
	KDEAuto KDE = iota
	// KDEOn always computes it (for N ≥ 2).
	KDEOn
	// KDEOff never does.
	KDEOff
)

// Config is what Run evaluates, and how.
type Config struct {
	// Probs and Labels are the files of the predictions [N, K] (or binary
	// [N], P(y=1)) and of the class labels [N]; Probs2, when not empty, a
	// second model's predictions on the same labels, for paired,
	// sample-matched differences (Probs2 minus Probs).
	Probs, Probs2, Labels string
	// Mode says what the prediction files hold (predict.Mode).
	Mode predict.Mode
	// Options are the binning rules, Convention their name in
	// metrics.Conventions (recorded in the report).
	Options    metrics.Options
	Convention string
	KDE        KDE
	// Bootstrap is the number of resamples of the 95% intervals of every
	// metric (0: none), drawn from Seed.
	Bootstrap int
	Seed      uint64
	// Warn, when set, gets each prediction file's warnings (a forced
	// reading that makes the results doubtful) before its metrics are
	// reported; Log a line before a computation of many seconds.
	Warn func(warnings []string)
	Log  func(line string)
}

// Run reads the files of c and computes their report, and the
// calibrations of the first predictions that the reliability diagrams
// draw (plot.WriteDiagrams).
func Run(c Config) (metrics.Report, metrics.Calibrations, error) {
	o := c.Options
	labels, p1, p2, err := c.read()
	if err != nil {
		return metrics.Report{}, metrics.Calibrations{}, err
	}
	if p1.K*o.Bins > MaxClassBins {
		return metrics.Report{}, metrics.Calibrations{}, fmt.Errorf("-bins %d with the %d classes of %s: the class-wise error would hold %d bins, more than %d: use fewer bins", o.Bins, p1.K, c.Probs, p1.K*o.Bins, MaxClassBins)
	}
	work := float64(len(labels)) * float64(len(labels)) * float64(p1.K) // ECE^KDE's N²K
	withKDE := len(labels) >= 2 && (c.KDE == KDEOn || (c.KDE == KDEAuto && work <= KDEAutoWork))
	canonical := metrics.CanonicalAffordable(o.Bins, p1.K)
	rep, cals, err := metrics.NewReport(p1.Probs, p1.K, labels, o, withKDE, canonical)
	if err != nil {
		return metrics.Report{}, metrics.Calibrations{}, err
	}
	rep.AddBins(cals)
	rep.Probs, rep.Labels, rep.Scheme, rep.Reference, rep.Convention = c.Probs, c.Labels, schemeName(o.Scheme), metrics.Conventions[c.Convention] == metrics.ReferenceECL, c.Convention
	rep.Input, rep.Notes = p1.Input, append(p1.Notes, p1.Warnings...)
	c.warn(p1.Warnings)
	if !canonical {
		rep.CanonicalSkipped = true
		rep.Notes = append(rep.Notes, fmt.Sprintf("canonical ECE skipped: the simplex for %d bins and %d classes has more than %d anchor values", o.Bins, p1.K, metrics.MaxAnchorValues))
	}
	if c.KDE == KDEAuto && !withKDE && len(labels) >= 2 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("ECE^KDE skipped: N²K = %.4g > %.3g (it would take about %.0f s); -kde to compute it", work, KDEAutoWork, work/metrics.KDERate))
	}
	if withKDE && work > KDEAutoWork && c.Log != nil {
		c.Log(fmt.Sprintf("computing ECE^KDE on N = %d, K = %d (O(N²K), about %.0f s)...", len(labels), p1.K, work/metrics.KDERate))
	}
	var probs2 []float64
	if p2 != nil {
		if rep.Compare, err = metrics.Compare(p1.Probs, p2.Probs, p1.K, labels, o, rep.KDEBandwidth, canonical); err != nil {
			return metrics.Report{}, metrics.Calibrations{}, err
		}
		rep.Compare.Probs, rep.Compare.Input, rep.Compare.Notes = c.Probs2, p2.Input, append(p2.Notes, p2.Warnings...)
		c.warn(p2.Warnings)
		probs2 = p2.Probs
	}
	if c.Bootstrap > 0 {
		rep.Bootstrap, rep.Seed = c.Bootstrap, c.Seed
		notes, err := metrics.BootstrapReport(&rep, p1.Probs, probs2, p1.K, labels, o, canonical, c.Bootstrap, c.Seed)
		if err != nil {
			return metrics.Report{}, metrics.Calibrations{}, err
		}
		rep.Notes = append(rep.Notes, notes...)
	}
	return rep, cals, nil
}

// read reads the labels and the predictions of c.
func (c Config) read() (labels []int, p1 predict.Probabilities, p2 *predict.Probabilities, err error) {
	if labels, err = predict.ReadLabels(c.Labels); err != nil {
		return nil, p1, nil, err
	}
	if p1, err = predict.ReadProbabilities(c.Probs, c.Labels, labels, c.Mode); err != nil {
		return nil, p1, nil, err
	}
	if c.Probs2 == "" {
		return labels, p1, nil, nil
	}
	q, err := predict.ReadProbabilities(c.Probs2, c.Labels, labels, c.Mode)
	if err != nil {
		return nil, p1, nil, err
	}
	if q.K != p1.K {
		return nil, p1, nil, fmt.Errorf("%s: %d classes, %s has %d", c.Probs2, q.K, c.Probs, p1.K)
	}
	return labels, p1, &q, nil
}

// warn passes warnings to c.Warn, when set.
func (c Config) warn(warnings []string) {
	if c.Warn != nil {
		c.Warn(warnings)
	}
}

// schemeName is the report's name of a binning scheme.
func schemeName(s metrics.Scheme) string {
	if s == metrics.EqualMass {
		return "mass"
	}
	return "width"
}
