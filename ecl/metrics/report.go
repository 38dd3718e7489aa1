package metrics

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
)

// Report is every metric of one set of predictions as a fraction
// (WriteText prints them ×100, NLL as is), ready to encode as JSON. NewReport
// fills the metrics; the caller names the inputs (Probs, Labels, Scheme,
// Convention, Input, Notes), AddBins the per-bin values, BootstrapReport
// the intervals.
type Report struct {
	Probs     string `json:"probs"`
	Labels    string `json:"labels"`
	N         int    `json:"n"`
	K         int    `json:"k"`
	Bins      int    `json:"bins"`
	Scheme    string `json:"scheme"`
	Reference bool   `json:"reference"`
	// Convention names the binning rules (Conventions).
	Convention string `json:"convention"`
	// Input says how the predictions were read: "probabilities" or "logits"
	// (softmax applied), and Notes what was detected or repaired on the way.
	Input string   `json:"input"`
	Notes []string `json:"notes,omitempty"`

	ACC        float64 `json:"acc"`
	ECE        float64 `json:"ece"`
	MCE        float64 `json:"mce"`
	ECEL2      float64 `json:"ece_l2"`
	DebiasedL2 float64 `json:"debiased_ece_l2"`
	CwECE      float64 `json:"cwece"`
	CanECE     float64 `json:"canonical_ece"`
	// CanonicalSkipped: the simplex was too large to build (see Notes).
	CanonicalSkipped bool `json:"canonical_skipped,omitempty"`
	// KDE holds ECE^KDE by mode (canonical, top-label, marginal); all
	// modes use the bandwidth selected on the probability matrix.
	KDE          map[string]float64 `json:"ece_kde,omitempty"`
	KDEBandwidth float64            `json:"kde_bandwidth,omitempty"`
	NLL          float64            `json:"nll"`
	Brier        float64            `json:"brier"`

	// Debiased holds the bias-corrected estimates of ece, cwece,
	// canonical_ece (DebiasedL1...) and ece_l2 (the debiased L2 error), the
	// centres of their intervals.
	Debiased map[string]float64 `json:"debiased,omitempty"`
	// CI holds the bootstrap 95% interval of every metric by its JSON name
	// (ECE^KDE modes as ece_kde_<mode>), CIMethod how each was built.
	CI        map[string][2]float64 `json:"ci95,omitempty"`
	CIMethod  map[string]string     `json:"ci_method,omitempty"`
	Bootstrap int                   `json:"bootstrap,omitempty"`
	Seed      uint64                `json:"seed,omitempty"`

	// Per-bin values of the non-empty bins, from which any tool can draw the
	// reliability diagrams.
	TopBins       []ReportBin    `json:"bins_top_label"`
	ClasswiseBins [][]ReportBin  `json:"bins_classwise"`
	CanonicalBins []ReportVecBin `json:"bins_canonical,omitempty"`

	// Compare is a second set of predictions on the same labels, with
	// sample-matched differences (this one minus the other).
	Compare *CompareReport `json:"compare,omitempty"`
}

// CompareReport is a second set of predictions' metrics and the differences
// (ECE^KDE with the first set's bandwidth); Compare fills Metrics and Diff,
// BootstrapReport DiffCI.
type CompareReport struct {
	Probs   string                `json:"probs"`
	Input   string                `json:"input"`
	Notes   []string              `json:"notes,omitempty"`
	Metrics map[string]float64    `json:"metrics"`
	Diff    map[string]float64    `json:"diff"`
	DiffCI  map[string][2]float64 `json:"diff_ci95,omitempty"`
}

// ReportBin is one bin of a 1-D reliability diagram: the interval (lo, hi],
// sample count, mean confidence and accuracy (or label frequency), and
// whether it counts in the error.
type ReportBin struct {
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
	Count int     `json:"count"`
	Conf  float64 `json:"conf"`
	Acc   float64 `json:"acc"`
	Used  bool    `json:"used"`
}

// ReportVecBin is one non-empty canonical bin: its anchor, count, mean
// probability vector and mean one-hot label.
type ReportVecBin struct {
	Anchor []float64 `json:"anchor"`
	Count  int       `json:"count"`
	Conf   []float64 `json:"conf"`
	Freq   []float64 `json:"freq"`
}

func reportBins(c Calibration) []ReportBin {
	var out []ReportBin
	for _, b := range c.Bins {
		if b.Count > 0 {
			out = append(out, ReportBin{b.Lo, b.Hi, b.Count, b.Conf, b.Acc, b.Used})
		}
	}
	return out
}

// kdeModes are the ECE^KDE modes of a Report, in order.
var kdeModes = []struct {
	name string
	mode KDEMode
}{{"canonical", KDECanonical}, {"top-label", KDETopLabel}, {"marginal", KDEMarginal}}

// MaxAnchorValues caps anchors×K of the canonical error's simplex in a
// Report (CanonicalAffordable).
const MaxAnchorValues = 20_000_000

// CanonicalAffordable reports whether the simplex anchors of b bins and k
// classes (bins.Simplex) hold at most MaxAnchorValues values, counted
// without building them: C(N+k−1, k−1) anchors for the smallest N ≥ 1 with
// that count ≥ b.
func CanonicalAffordable(b, k int) bool {
	logC := func(m, r int) float64 {
		a, _ := math.Lgamma(float64(m + 1))
		c, _ := math.Lgamma(float64(r + 1))
		d, _ := math.Lgamma(float64(m - r + 1))
		return a - c - d
	}
	for n := 1; ; n++ {
		if lc := logC(n+k-1, k-1); lc >= math.Log(float64(b))-1e-9 {
			return lc+math.Log(float64(k)) <= math.Log(MaxAnchorValues)
		}
	}
}

// Compare evaluates probs2 [N, k] and its differences from probs1 on the
// same labels (probs1's metric minus probs2's); ECE^KDE with probs1's
// bandwidth h when h > 0 (Report.KDEBandwidth), the canonical error when
// canonical. The caller names the second input (Probs, Input, Notes).
func Compare(probs1, probs2 []float64, k int, labels []int, o Options, h float64, canonical bool) (*CompareReport, error) {
	m1, err := statistics(probs1, k, labels, o, h, canonical)
	if err != nil {
		return nil, err
	}
	m2, err := statistics(probs2, k, labels, o, h, canonical)
	if err != nil {
		return nil, err
	}
	c := &CompareReport{Metrics: map[string]float64{}, Diff: map[string]float64{}}
	for name, v := range m2 {
		if !strings.HasPrefix(name, "_") { // the intervals' helpers
			c.Metrics[name], c.Diff[name] = v, m1[name]-v
		}
	}
	return c, nil
}

// Calibrations are the binned results behind a Report, which reliability
// diagrams draw (Canonical is empty when the report has no canonical error).
type Calibrations struct {
	Top       Calibration
	Classwise Classwise
	Canonical Canonical
}

// NewReport computes every metric of probabilities probs [N, k] against
// labels under o: Measure's and the L∞ and L2 errors; ECE^KDE in every mode
// only when kde is set, the canonical error only when canonical is (see
// CanonicalAffordable). It returns the binned results too.
func NewReport(probs []float64, k int, labels []int, o Options, kde, canonical bool) (Report, Calibrations, error) {
	var modes []KDEMode
	if kde {
		for _, m := range kdeModes {
			modes = append(modes, m.mode)
		}
	}
	m, err := Measure(probs, k, labels, o, canonical, modes...)
	if err != nil {
		return Report{}, Calibrations{}, err
	}
	r := Report{N: len(labels), K: k, Bins: o.Bins, ACC: m.ACC, ECE: m.Top.Error, CwECE: m.Classwise.Error, NLL: m.NLL, Brier: m.Brier}
	c := Calibrations{Top: m.Top, Classwise: m.Classwise}
	withNorm := func(norm Norm, dst *float64) func() error {
		return func() error {
			on := o
			on.Norm = norm
			cal, err := ECE(probs, k, labels, on)
			*dst = cal.Error
			return err
		}
	}
	for _, step := range []func() error{
		withNorm(Max, &r.MCE),
		withNorm(L2, &r.ECEL2),
		func() (err error) { r.DebiasedL2, err = DebiasedL2ECE(probs, k, labels, o); return err },
	} {
		if err := step(); err != nil {
			return Report{}, Calibrations{}, err
		}
	}
	if m.KDE != nil {
		r.KDE, r.KDEBandwidth = map[string]float64{}, m.Bandwidth
		for _, mode := range kdeModes {
			r.KDE[mode.name] = m.KDE[mode.mode]
		}
	}
	r.Debiased = map[string]float64{"ece": DebiasedL1(c.Top), "cwece": DebiasedL1Classwise(c.Classwise, o.SumClasses), "ece_l2": r.DebiasedL2}
	if m.Canonical != nil {
		c.Canonical, r.CanECE = *m.Canonical, m.Canonical.Error
		r.Debiased["canonical_ece"] = DebiasedL1Canonical(c.Canonical)
	}
	return r, c, nil
}

// AddBins fills r's per-bin values from c.
func (r *Report) AddBins(c Calibrations) {
	r.TopBins = reportBins(c.Top)
	for _, cl := range c.Classwise.Classes {
		r.ClasswiseBins = append(r.ClasswiseBins, reportBins(cl))
	}
	k := c.Canonical.K
	for j, b := range c.Canonical.Bins {
		if b.Count > 0 {
			r.CanonicalBins = append(r.CanonicalBins, ReportVecBin{c.Canonical.Anchors[j*k : (j+1)*k], b.Count, b.Conf, b.Freq})
		}
	}
}

// statistics returns every bootstrapped statistic of predictions by its
// JSON name, plus the helpers of the intervals (names starting with "_":
// debiased squared errors and bias-corrected L1 errors); ECE^KDE (with the
// fixed bandwidth h) when h > 0, the canonical error when canonical.
func statistics(probs []float64, k int, labels []int, o Options, h float64, canonical bool) (map[string]float64, error) {
	r, c, err := NewReport(probs, k, labels, o, false, canonical)
	if err != nil {
		return nil, err
	}
	s := map[string]float64{
		"acc": r.ACC, "ece": r.ECE, "mce": r.MCE, "ece_l2": r.ECEL2, "debiased_ece_l2": r.DebiasedL2,
		"cwece": r.CwECE, "nll": r.NLL, "brier": r.Brier,
		"_sq_ece": DebiasedSquared(c.Top), "_sq_cwece": DebiasedSquaredClasswise(c.Classwise, o.SumClasses),
	}
	for name, v := range r.Debiased {
		s["_deb_"+name] = v
	}
	if canonical {
		s["canonical_ece"] = r.CanECE
		s["_sq_canonical_ece"] = DebiasedSquaredCanonical(c.Canonical)
	}
	if h > 0 {
		for _, m := range kdeModes {
			res, err := ECEKDE(probs, k, labels, KDEOptions{Mode: m.mode, Bandwidth: h})
			if err != nil {
				return nil, err
			}
			s["ece_kde_"+m.name] = res.Value
		}
	}
	return s, nil
}

// WriteText writes r as a table, calibration errors in %, then the notes.
func (r Report) WriteText(w io.Writer) {
	ref := ""
	if r.Convention != "" && r.Convention != "ours" {
		ref = ", " + r.Convention + " conventions"
	}
	fmt.Fprintf(w, "%s (labels %s): %d samples, %d classes (%s); %d %s bins%s\n", r.Probs, r.Labels, r.N, r.K, r.Input, r.Bins, r.Scheme, ref)
	interval := func(name string, scale float64) string {
		c, ok := r.CI[name]
		if !ok {
			return ""
		}
		s := fmt.Sprintf("   95%% CI [%.3f, %.3f]", scale*c[0], scale*c[1])
		if d, ok := r.Debiased[name]; ok {
			s += fmt.Sprintf(" around the bias-corrected %.3f", scale*d)
		}
		return s
	}
	line := func(name, key string, v float64) {
		fmt.Fprintf(w, "  %-22s %8.3f %%%s\n", name, 100*v, interval(key, 100))
	}
	line("ACC", "acc", r.ACC)
	line("ECE (top-label, L1)", "ece", r.ECE)
	line("MCE", "mce", r.MCE)
	line("ECE L2", "ece_l2", r.ECEL2)
	line("debiased ECE L2", "debiased_ece_l2", r.DebiasedL2)
	line("CwECE", "cwece", r.CwECE)
	if r.CanonicalSkipped {
		fmt.Fprintf(w, "  %-22s  skipped (see the note)\n", "canonical ECE")
	} else {
		line("canonical ECE", "canonical_ece", r.CanECE)
	}
	if r.KDE != nil {
		for _, m := range kdeModes {
			fmt.Fprintf(w, "  %-22s %8.3f %%   bandwidth %.4g%s\n", "ECE^KDE "+m.name, 100*r.KDE[m.name], r.KDEBandwidth, interval("ece_kde_"+m.name, 100))
		}
	}
	fmt.Fprintf(w, "  %-22s %8.4f%s\n", "NLL", r.NLL, interval("nll", 1))
	line("Brier", "brier", r.Brier)
	if r.Bootstrap > 0 {
		fmt.Fprintf(w, "  (%d bootstrap resamples, seed %d)\n", r.Bootstrap, r.Seed)
	}
	if c := r.Compare; c != nil {
		fmt.Fprintf(w, "minus %s on the same samples (points of %%, NLL as is):\n", c.Probs)
		for _, name := range slices.Sorted(maps.Keys(c.Diff)) {
			scale := 100.0
			if name == "nll" {
				scale = 1
			}
			ci := ""
			if v, ok := c.DiffCI[name]; ok {
				ci = fmt.Sprintf("   95%% CI [%+.3f, %+.3f]", scale*v[0], scale*v[1])
			}
			fmt.Fprintf(w, "  %-22s %+9.3f%s\n", name, scale*c.Diff[name], ci)
		}
		r.Notes = append(r.Notes, c.Notes...)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}
