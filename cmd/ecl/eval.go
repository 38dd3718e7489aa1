package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/ecl-go/ecl/datasets/arrays"
	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/ecl/plot"
	"github.com/ecl-go/ecl/experiment"
	"github.com/ecl-go/ecl/tensor"
)

// evalReport is every metric of one set of predictions as a fraction (the
// table prints them ×100, NLL as is); it is also the -json output.
type evalReport struct {
	Probs     string `json:"probs"`
	Labels    string `json:"labels"`
	N         int    `json:"n"`
	K         int    `json:"k"`
	Bins      int    `json:"bins"`
	Scheme    string `json:"scheme"`
	Reference bool   `json:"reference"`
	// Convention names the binning rules (metrics.Conventions).
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
	// canonical_ece (metrics.DebiasedL1...) and ece_l2 (the debiased L2
	// error), the centres of their intervals.
	Debiased map[string]float64 `json:"debiased,omitempty"`
	// CI holds the bootstrap 95% interval of every metric by its JSON name
	// (ECE^KDE modes as ece_kde_<mode>), CIMethod how each was built.
	CI        map[string][2]float64 `json:"ci95,omitempty"`
	CIMethod  map[string]string     `json:"ci_method,omitempty"`
	Bootstrap int                   `json:"bootstrap,omitempty"`
	Seed      uint64                `json:"seed,omitempty"`

	// Per-bin values of the non-empty bins, from which any tool can draw the
	// reliability diagrams.
	TopBins       []binJSON    `json:"bins_top_label"`
	ClasswiseBins [][]binJSON  `json:"bins_classwise"`
	CanonicalBins []vecBinJSON `json:"bins_canonical,omitempty"`

	// Compare is the second prediction file (-probs2) on the same labels,
	// with sample-matched differences (this file minus the other).
	Compare *compareReport `json:"compare,omitempty"`
}

// compareReport is a second prediction file's metrics and the differences
// (ECE^KDE with the first file's bandwidth).
type compareReport struct {
	Probs   string                `json:"probs"`
	Input   string                `json:"input"`
	Notes   []string              `json:"notes,omitempty"`
	Metrics map[string]float64    `json:"metrics"`
	Diff    map[string]float64    `json:"diff"`
	DiffCI  map[string][2]float64 `json:"diff_ci95,omitempty"`
}

// binJSON is one bin of a 1-D reliability diagram: the interval (lo, hi],
// sample count, mean confidence and accuracy (or label frequency), and
// whether it counts in the error.
type binJSON struct {
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
	Count int     `json:"count"`
	Conf  float64 `json:"conf"`
	Acc   float64 `json:"acc"`
	Used  bool    `json:"used"`
}

// vecBinJSON is one non-empty canonical bin: its anchor, count, mean
// probability vector and mean one-hot label.
type vecBinJSON struct {
	Anchor []float64 `json:"anchor"`
	Count  int       `json:"count"`
	Conf   []float64 `json:"conf"`
	Freq   []float64 `json:"freq"`
}

func binsJSON(c metrics.Calibration) []binJSON {
	var out []binJSON
	for _, b := range c.Bins {
		if b.Count > 0 {
			out = append(out, binJSON{b.Lo, b.Hi, b.Count, b.Conf, b.Acc, b.Used})
		}
	}
	return out
}

// kdeModes are the ECE^KDE modes reported, in order.
var kdeModes = []struct {
	name string
	mode metrics.KDEMode
}{{"canonical", metrics.KDECanonical}, {"top-label", metrics.KDETopLabel}, {"marginal", metrics.KDEMarginal}}

// Limits checked before anything is allocated from a flag.
const (
	maxBins = 100_000
	// maxClassBins caps K×bins, the bins of the class-wise error.
	maxClassBins = 2_000_000
	// maxAnchorValues caps anchors×K of the canonical error's simplex.
	maxAnchorValues = 20_000_000
	// kdeAutoWork is the N²K up to which -kde auto computes ECE^KDE (about
	// 2 s on one core of the project's machine, which does kdeRate units a
	// second).
	kdeAutoWork = 5e7
	kdeRate     = 2.5e7
)

// kdeNoInterval says why ECE^KDE gets no interval.
const kdeNoInterval = "ECE^KDE has no interval: its smoothing bias at these sample sizes is several times its bootstrap spread, and bootstrap intervals around it covered the true error in 0 to 5% of simulated draws (metrics.TestKDEBootstrapIntervalMissesTheTruth)"

// triState is a boolean flag that may also be left to "auto".
type triState string

func (t *triState) String() string   { return string(*t) }
func (t *triState) IsBoolFlag() bool { return true }
func (t *triState) Set(v string) error {
	switch v {
	case "auto":
	case "true", "1", "on":
		v = "true"
	case "false", "0", "off":
		v = "false"
	default:
		return fmt.Errorf("want true, false or auto")
	}
	*t = triState(v)
	return nil
}

// runEval is "ecl eval": every calibration metric of given predictions,
// optionally with bootstrap intervals and reliability diagrams.
func runEval(args []string) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	probsPath := fs.String("probs", "", "predictions [N, K] or binary [N] (P(y=1)): CSV, .npy or .npz[:array] (required)")
	probs2Path := fs.String("probs2", "", "second predictions on the same labels: paired, sample-matched differences (this minus the other)")
	labelsPath := fs.String("labels", "", "class labels [N]: CSV, text (one per line), .npy or .npz[:array] (required)")
	input := fs.String("input", "auto", "what the files hold: `auto` (detected and reported), probs, or logits (softmax; sigmoid for one column)")
	logits := fs.Bool("logits", false, "the predictions are logits (refused when they look like probabilities: use -input logits to force)")
	nbins := fs.Int("bins", metrics.DefaultBins, fmt.Sprintf("number of bins, at most %d (canonical: anchors requested)", maxBins))
	scheme := fs.String("scheme", "width", "bins of equal `width` or equal mass")
	reference := fs.Bool("reference", false, "the reference metrics.py conventions (bins with ≤5 samples left out, confidence 0 in no bin, float32 anchors): -convention reference")
	convention := fs.String("convention", "ours", "binning rules of a library: ours, reference (ECL metrics.py), torchmetrics, netcal, kumar (see docs/conventions.md)")
	boot := fs.Int("bootstrap", 0, "bootstrap resamples for 95% intervals of every metric (0: none)")
	seed := fs.Uint64("seed", 1, "seed of the bootstrap")
	kde := triState("auto")
	fs.Var(&kde, "kde", fmt.Sprintf("compute ECE^KDE, O(N²K): true, false, or auto (only while N²K ≤ %.3g)", kdeAutoWork))
	out := fs.String("out", "", "directory for reliability diagrams as PNG and SVG (empty: none)")
	style := diagramFlags(fs)
	asJSON := fs.Bool("json", false, "print JSON (metrics as fractions) instead of a table")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	case *probsPath == "" || *labelsPath == "":
		return errors.New("-probs and -labels are required")
	case *nbins < 1 || *nbins > maxBins:
		return fmt.Errorf("-bins %d: want 1 to %d", *nbins, maxBins)
	case *boot < 0 || *boot > 1_000_000:
		return fmt.Errorf("-bootstrap %d: want 0 to 1000000", *boot)
	case *input != "auto" && *input != "probs" && *input != "logits":
		return fmt.Errorf("-input %q: want auto, probs or logits", *input)
	case *logits && *input != "auto":
		return errors.New("-logits and -input: give one")
	}
	mode := *input
	if *logits {
		mode = "logits?"
	}
	conv, ok := metrics.Conventions[*convention]
	switch {
	case !ok:
		return fmt.Errorf("-convention %q: want ours, reference, torchmetrics, netcal or kumar", *convention)
	case *reference && conv != metrics.Ours && conv != metrics.ReferenceECL:
		return fmt.Errorf("-reference and -convention %s: give one", *convention)
	case *reference:
		conv, *convention = metrics.ReferenceECL, "reference"
	}
	o := metrics.ConventionOptions(conv)
	o.Bins = *nbins
	switch *scheme {
	case "width":
	case "mass":
		o.Scheme = metrics.EqualMass
	default:
		return fmt.Errorf("-scheme %q: want width or mass", *scheme)
	}
	labels, err := readLabels(*labelsPath)
	if err != nil {
		return err
	}
	p1, err := readPredictions(*probsPath, *labelsPath, labels, mode)
	if err != nil {
		return err
	}
	var p2 *predictions
	if *probs2Path != "" {
		q, err := readPredictions(*probs2Path, *labelsPath, labels, mode)
		if err != nil {
			return err
		}
		if q.k != p1.k {
			return fmt.Errorf("%s: %d classes, %s has %d", *probs2Path, q.k, *probsPath, p1.k)
		}
		p2 = &q
	}
	if p1.k*o.Bins > maxClassBins {
		return fmt.Errorf("-bins %d with the %d classes of %s: the class-wise error would hold %d bins, more than %d: use fewer bins", o.Bins, p1.k, *probsPath, p1.k*o.Bins, maxClassBins)
	}
	work := float64(len(labels)) * float64(len(labels)) * float64(p1.k) // ECE^KDE's N²K
	withKDE := len(labels) >= 2 && (kde == "true" || (kde == "auto" && work <= kdeAutoWork))
	canonical := canonicalAffordable(o.Bins, p1.k)
	rep, cals, err := evaluate(p1.probs, p1.k, labels, o, withKDE, canonical)
	if err != nil {
		return err
	}
	addBins(&rep, cals)
	rep.Probs, rep.Labels, rep.Scheme, rep.Reference, rep.Convention = *probsPath, *labelsPath, *scheme, conv == metrics.ReferenceECL, *convention
	rep.Input, rep.Notes = p1.input, p1.notes
	if !canonical {
		rep.CanonicalSkipped = true
		rep.Notes = append(rep.Notes, fmt.Sprintf("canonical ECE skipped: the simplex for %d bins and %d classes has more than %d anchor values", o.Bins, p1.k, maxAnchorValues))
	}
	if kde == "auto" && !withKDE && len(labels) >= 2 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("ECE^KDE skipped: N²K = %.4g > %.3g (it would take about %.0f s); -kde to compute it", work, kdeAutoWork, work/kdeRate))
	}
	if withKDE && work > kdeAutoWork {
		fmt.Fprintf(os.Stderr, "ecl eval: computing ECE^KDE on N = %d, K = %d (O(N²K), about %.0f s)...\n", len(labels), p1.k, work/kdeRate)
	}
	if p2 != nil {
		if rep.Compare, err = compare(p1, *p2, *probs2Path, labels, o, rep.KDEBandwidth, canonical); err != nil {
			return err
		}
	}
	if *boot > 0 {
		rep.Bootstrap, rep.Seed = *boot, *seed
		notes, err := bootstrap(&rep, p1, p2, labels, o, canonical, *boot, *seed)
		if err != nil {
			return err
		}
		rep.Notes = append(rep.Notes, notes...)
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		printReport(os.Stdout, rep)
	}
	if *out != "" {
		return writeDiagrams(*out, "", "", cals, *style)
	}
	return nil
}

// compare evaluates p2 (read from path) and its differences from p1 on the
// same labels; ECE^KDE with p1's bandwidth h when h > 0.
func compare(p1, p2 predictions, path string, labels []int, o metrics.Options, h float64, canonical bool) (*compareReport, error) {
	m1, err := statistics(p1.probs, p1.k, labels, o, h, canonical)
	if err != nil {
		return nil, err
	}
	m2, err := statistics(p2.probs, p2.k, labels, o, h, canonical)
	if err != nil {
		return nil, err
	}
	c := &compareReport{Probs: path, Input: p2.input, Notes: p2.notes, Metrics: map[string]float64{}, Diff: map[string]float64{}}
	for name, v := range m2 {
		if !strings.HasPrefix(name, "_") { // the intervals' helpers
			c.Metrics[name], c.Diff[name] = v, m1[name]-v
		}
	}
	return c, nil
}

// canonicalAffordable reports whether the simplex anchors of b bins and k
// classes (bins.Simplex) hold at most maxAnchorValues values, counted
// without building them: C(N+k−1, k−1) anchors for the smallest N ≥ 1 with
// that count ≥ b.
func canonicalAffordable(b, k int) bool {
	logC := func(m, r int) float64 {
		a, _ := math.Lgamma(float64(m + 1))
		c, _ := math.Lgamma(float64(r + 1))
		d, _ := math.Lgamma(float64(m - r + 1))
		return a - c - d
	}
	for n := 1; ; n++ {
		if lc := logC(n+k-1, k-1); lc >= math.Log(float64(b))-1e-9 {
			return lc+math.Log(float64(k)) <= math.Log(maxAnchorValues)
		}
	}
}

// predictions are checked [N, K] probabilities read from a file.
type predictions struct {
	probs []float64
	k     int
	input string   // "probabilities" or "logits"
	notes []string // what was detected or repaired
}

// readLabels reads the integer labels, naming the file when it is empty.
func readLabels(path string) ([]int, error) {
	labels, err := arrays.ReadLabels(path)
	if err != nil {
		return nil, err
	}
	if len(labels) == 0 {
		return nil, fmt.Errorf("%s: no labels (0 rows)", path)
	}
	return labels, nil
}

// readPredictions reads predictions for labels and turns them into checked
// [N, K] probabilities. mode is "auto" (probabilities when every entry is in
// [0, 1] and rows sum to 1 within roundTol, logits when some entry is
// outside [0, 1]), "probs", "logits" (forced), or "logits?" (-logits:
// logits, refused when the file looks like probabilities). One column is a
// binary P(y = 1) (or its logit). Rows of probabilities that sum to 1 within
// roundTol (rounded CSV) are renormalised, with a note.
func readPredictions(path, labelsPath string, labels []int, mode string) (predictions, error) {
	m, err := arrays.Load(path)
	if err != nil {
		return predictions{}, err
	}
	p := predictions{probs: m.Data, k: m.Cols, notes: m.Notes}
	if m.Rows == 0 {
		return p, fmt.Errorf("%s: no predictions (0 rows)", path)
	}
	if m.Rows != len(labels) {
		return p, fmt.Errorf("%s: %d labels for the %d rows of %s", labelsPath, len(labels), m.Rows, path)
	}
	for i, v := range p.probs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return p, fmt.Errorf("%s: row %d, column %d: %v is not finite", path, i/p.k+1, i%p.k+1, v)
		}
	}
	inUnit, dev, worst := probStats(p.probs, p.k)
	looksProbs := inUnit && (p.k == 1 || dev <= roundTol)
	switch {
	case mode == "logits?" && looksProbs:
		return p, fmt.Errorf("%s: -logits, but every row is already probabilities (entries in [0, 1]%s); softmax would flatten them: drop -logits, or pass -input logits to force", path, map[bool]string{true: "", false: ", rows summing to 1"}[p.k == 1])
	case mode == "logits" || mode == "logits?" || (mode == "auto" && !inUnit):
		p.input = "logits"
		if mode == "auto" {
			p.notes = append(p.notes, fmt.Sprintf("%s: values outside [0, 1]: read as logits (softmax applied; -input probs to refuse)", path))
		}
		p.probs, p.k = softmaxRows(p.probs, p.k), max(p.k, 2)
	default:
		p.input = "probabilities"
		if !inUnit {
			i := slices.IndexFunc(p.probs, func(v float64) bool { return v < 0 || v > 1 })
			return p, fmt.Errorf("%s: row %d, column %d: %v is not a probability (-input logits for logits)", path, i/p.k+1, i%p.k+1, p.probs[i])
		}
		if p.k > 1 && dev > roundTol {
			return p, fmt.Errorf("%s: row %d sums to %v, not 1 (-input logits for logits)", path, worst+1, rowSum(p.probs, p.k, worst))
		}
		if p.k > 1 && dev > 1e-9 {
			renormalise(p.probs, p.k)
			p.notes = append(p.notes, fmt.Sprintf("%s: rows sum to 1 only within %.2g (rounded values?): renormalised", path, dev))
		}
		if p.k == 1 {
			p.probs, p.k = binaryColumns(p.probs), 2
		}
	}
	if p.k == 2 && m.Cols == 1 {
		p.notes = append(p.notes, fmt.Sprintf("%s: one column, read as the binary P(y = 1)", path))
	}
	for i, y := range labels {
		if y < 0 || y >= p.k {
			return p, fmt.Errorf("%s: row %d: label %d outside [0, %d) (%s has %d classes)", labelsPath, i+1, y, p.k, path, p.k)
		}
	}
	return p, nil
}

// roundTol is how far a row of probabilities may sum from 1 and still be
// taken as rounded (renormalised) rather than refused: values rounded to 3
// decimals are off by at most K·5e-4.
const roundTol = 1e-2

// probStats reports whether every entry is in [0, 1], and the largest
// deviation of a row sum from 1 with its row.
func probStats(p []float64, k int) (inUnit bool, dev float64, worst int) {
	inUnit = true
	for i := 0; i < len(p); i += k {
		for _, v := range p[i : i+k] {
			inUnit = inUnit && v >= 0 && v <= 1
		}
		if d := math.Abs(rowSum(p, k, i/k) - 1); d > dev {
			dev, worst = d, i/k
		}
	}
	return inUnit, dev, worst
}

func rowSum(p []float64, k, row int) float64 {
	s := 0.0
	for _, v := range p[row*k : (row+1)*k] {
		s += v
	}
	return s
}

// renormalise divides every row by its sum.
func renormalise(p []float64, k int) {
	for i := 0; i < len(p); i += k {
		s := rowSum(p, k, i/k)
		for j := range k {
			p[i+j] /= s
		}
	}
}

// binaryColumns turns P(y = 1) into rows [1 − p, p].
func binaryColumns(p []float64) []float64 {
	out := make([]float64, 2*len(p))
	for i, v := range p {
		out[2*i], out[2*i+1] = 1-v, v
	}
	return out
}

// softmaxRows returns the softmax of each row of finite logits (the
// engine's stable one); one column is a binary logit z, read as the row
// [0, z] (P(y = 1) = σ(z)).
func softmaxRows(x []float64, k int) []float64 {
	if k == 1 {
		z := make([]float64, 2*len(x))
		for i, v := range x {
			z[2*i+1] = v
		}
		x, k = z, 2
	}
	return tensor.Softmax(tensor.FromSlice(x, len(x)/k, k), 1).Data()
}

// calibrations holds the binned results that the diagrams draw.
type calibrations struct {
	top metrics.Calibration
	cw  metrics.Classwise
	can metrics.Canonical
}

// evaluate computes every metric of checked predictions: the studies'
// (experiment.Measure) and the L∞ and L2 errors; ECE^KDE only when kde is
// set, the canonical error only when canonical is.
func evaluate(probs []float64, k int, labels []int, o metrics.Options, kde, canonical bool) (evalReport, calibrations, error) {
	var modes []metrics.KDEMode
	if kde {
		for _, m := range kdeModes {
			modes = append(modes, m.mode)
		}
	}
	m, err := experiment.Measure(probs, k, labels, o, canonical, modes...)
	if err != nil {
		return evalReport{}, calibrations{}, err
	}
	r := evalReport{N: len(labels), K: k, Bins: o.Bins, ACC: m.ACC, ECE: m.Top.Error, CwECE: m.Classwise.Error, NLL: m.NLL, Brier: m.Brier}
	c := calibrations{top: m.Top, cw: m.Classwise}
	withNorm := func(norm metrics.Norm, dst *float64) func() error {
		return func() error {
			on := o
			on.Norm = norm
			cal, err := metrics.ECE(probs, k, labels, on)
			*dst = cal.Error
			return err
		}
	}
	for _, step := range []func() error{
		withNorm(metrics.Max, &r.MCE),
		withNorm(metrics.L2, &r.ECEL2),
		func() (err error) { r.DebiasedL2, err = metrics.DebiasedL2ECE(probs, k, labels, o); return err },
	} {
		if err := step(); err != nil {
			return evalReport{}, calibrations{}, err
		}
	}
	if m.KDE != nil {
		r.KDE, r.KDEBandwidth = map[string]float64{}, m.Bandwidth
		for _, mode := range kdeModes {
			r.KDE[mode.name] = m.KDE[mode.mode]
		}
	}
	r.Debiased = map[string]float64{"ece": metrics.DebiasedL1(c.top), "cwece": metrics.DebiasedL1Classwise(c.cw, o.SumClasses), "ece_l2": r.DebiasedL2}
	if m.Canonical != nil {
		c.can, r.CanECE = *m.Canonical, m.Canonical.Error
		r.Debiased["canonical_ece"] = metrics.DebiasedL1Canonical(c.can)
	}
	return r, c, nil
}

// addBins fills r's per-bin values from c.
func addBins(r *evalReport, c calibrations) {
	r.TopBins = binsJSON(c.top)
	for _, cl := range c.cw.Classes {
		r.ClasswiseBins = append(r.ClasswiseBins, binsJSON(cl))
	}
	k := c.can.K
	for j, b := range c.can.Bins {
		if b.Count > 0 {
			r.CanonicalBins = append(r.CanonicalBins, vecBinJSON{c.can.Anchors[j*k : (j+1)*k], b.Count, b.Conf, b.Freq})
		}
	}
}

// statistics returns every bootstrapped statistic of predictions by its
// JSON name, plus the helpers of the intervals (names starting with "_":
// debiased squared errors and bias-corrected L1 errors); ECE^KDE (with the
// fixed bandwidth h) when h > 0, the canonical error when canonical.
func statistics(probs []float64, k int, labels []int, o metrics.Options, h float64, canonical bool) (map[string]float64, error) {
	r, c, err := evaluate(probs, k, labels, o, false, canonical)
	if err != nil {
		return nil, err
	}
	s := map[string]float64{
		"acc": r.ACC, "ece": r.ECE, "mce": r.MCE, "ece_l2": r.ECEL2, "debiased_ece_l2": r.DebiasedL2,
		"cwece": r.CwECE, "nll": r.NLL, "brier": r.Brier,
		"_sq_ece": metrics.DebiasedSquared(c.top), "_sq_cwece": metrics.DebiasedSquaredClasswise(c.cw, o.SumClasses),
	}
	for name, v := range r.Debiased {
		s["_deb_"+name] = v
	}
	if canonical {
		s["canonical_ece"] = r.CanECE
		s["_sq_canonical_ece"] = metrics.DebiasedSquaredCanonical(c.can)
	}
	if h > 0 {
		for _, m := range kdeModes {
			res, err := metrics.ECEKDE(probs, k, labels, metrics.KDEOptions{Mode: m.mode, Bandwidth: h})
			if err != nil {
				return nil, err
			}
			s["ece_kde_"+m.name] = res.Value
		}
	}
	return s, nil
}

// bootstrap fills r's 95% intervals of every metric (and of the differences
// with p2) from reps resamples drawn from seed; both files see the same
// resamples. Means (accuracy, NLL, Brier) get percentile intervals; the L1
// binned errors metrics.L1Interval around their bias-corrected estimates;
// the L2 error metrics.L2Interval, its debiased estimate
// metrics.DebiasedInterval; MCE metrics.MCEInterval (no bootstrap); ECE^KDE
// none, with a note saying why (kdeNoInterval). Differences get basic
// intervals.
func bootstrap(r *evalReport, p1 predictions, p2 *predictions, labels []int, o metrics.Options, canonical bool, reps int, seed uint64) ([]string, error) {
	n := len(labels)
	var notes []string
	if r.KDE != nil {
		notes = append(notes, kdeNoInterval)
	}
	vals1, vals2 := map[string][]float64{}, map[string][]float64{}
	var firstErr error
	collect := func(dst map[string][]float64, p predictions, idx []int, h float64) {
		pp, y := metrics.Subset(p.probs, p.k, labels, idx)
		s, err := statistics(pp, p.k, y, o, h, canonical)
		if err != nil {
			firstErr = cmp.Or(firstErr, err)
			return
		}
		for name, v := range s {
			dst[name] = append(dst[name], v)
		}
	}
	metrics.Resample(n, reps, rand.New(rand.NewPCG(seed, 0)), func(_ int, idx []int) {
		collect(vals1, p1, idx, 0)
		if p2 != nil {
			collect(vals2, *p2, idx, 0)
		}
	})
	if firstErr != nil {
		return nil, firstErr
	}
	full, err := statistics(p1.probs, p1.k, labels, o, 0, canonical)
	if err != nil {
		return nil, err
	}
	const level = 0.95
	r.CI, r.CIMethod = map[string][2]float64{}, map[string]string{}
	set := func(name, method string, lo, hi float64) {
		r.CI[name], r.CIMethod[name] = [2]float64{lo, hi}, method
	}
	for _, name := range []string{"acc", "nll", "brier"} {
		lo, hi := metrics.PercentileInterval(vals1[name], level)
		set(name, "percentile", lo, hi)
	}
	for _, name := range []string{"ece", "cwece", "canonical_ece"} {
		if _, ok := vals1[name]; ok {
			lo, hi := metrics.L1Interval(full["_deb_"+name], vals1["_deb_"+name], full["_sq_"+name], vals1["_sq_"+name], level)
			set(name, "bias-corrected normal (metrics.L1Interval)", lo, hi)
		}
	}
	lo, hi := metrics.L2Interval(full["_sq_ece"], vals1["_sq_ece"], level)
	set("ece_l2", "bias-corrected normal of the root (metrics.L2Interval)", lo, hi)
	lo, hi = metrics.DebiasedInterval(full["_sq_ece"], vals1["_sq_ece"], level)
	set("debiased_ece_l2", "debiased normal of the square (metrics.DebiasedInterval)", lo, hi)
	top, err := metrics.ECE(p1.probs, p1.k, labels, o)
	if err != nil {
		return nil, err
	}
	lo, hi = metrics.MCEInterval(top, level)
	set("mce", "Wilson per bin, Bonferroni over bins (metrics.MCEInterval)", lo, hi)
	if p2 != nil {
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
			lo, hi := metrics.BasicInterval(d, diff, level)
			c.DiffCI[name] = [2]float64{lo, hi}
		}
	}
	return notes, nil
}

// printReport prints r as a table, calibration errors in %, then the notes.
func printReport(w io.Writer, r evalReport) {
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

// writeDiagrams writes the top-label, class-wise and (for K = 3) canonical
// reliability diagrams as PNG and SVG into dir, file names prefixed by
// prefix, with the given title, in the given style.
func writeDiagrams(dir, prefix, title string, c calibrations, style diagramStyle) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	top, err := plot.TopLabel(c.top, title)
	if err != nil {
		return err
	}
	cw, err := plot.Classwise(c.cw, title)
	if err != nil {
		return err
	}
	type diagram struct {
		name string
		fig  plot.Figure
		w, h vg.Length // per panel
	}
	diagrams := []diagram{{"top-label", plot.Figure{{top}}, 12 * vg.Centimeter, 10 * vg.Centimeter}, {"classwise", cw, 11 * vg.Centimeter, 9 * vg.Centimeter}}
	if c.can.K == 3 {
		can, err := plot.Canonical(c.can, title)
		if err != nil {
			return err
		}
		diagrams = append(diagrams, diagram{"canonical", plot.Figure{{can}}, 14 * vg.Centimeter, 11 * vg.Centimeter})
	}
	for _, d := range diagrams {
		for _, ext := range []string{".png", ".svg"} {
			if err := plot.SaveFigureDPI(d.fig, filepath.Join(dir, prefix+d.name+ext), d.w*style.scale(), d.h*style.scale(), style.DPI); err != nil {
				return err
			}
		}
	}
	return nil
}
