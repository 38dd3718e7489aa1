package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"gonum.org/v1/plot/vg"

	"github.com/ecl-go/ecl/datasets/arrays"
	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/ecl/plot"
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

	ACC        float64 `json:"acc"`
	ECE        float64 `json:"ece"`
	MCE        float64 `json:"mce"`
	ECEL2      float64 `json:"ece_l2"`
	DebiasedL2 float64 `json:"debiased_ece_l2"`
	CwECE      float64 `json:"cwece"`
	CanECE     float64 `json:"canonical_ece"`
	// KDE holds ECE^KDE by mode (canonical, top-label, marginal); all
	// modes use the bandwidth selected on the probability matrix.
	KDE          map[string]float64 `json:"ece_kde,omitempty"`
	KDEBandwidth float64            `json:"kde_bandwidth,omitempty"`
	NLL          float64            `json:"nll"`
	Brier        float64            `json:"brier"`

	// CI holds the bootstrap 95% intervals of ece, cwece and canonical_ece.
	CI        map[string][2]float64 `json:"ci95,omitempty"`
	Bootstrap int                   `json:"bootstrap,omitempty"`
	Seed      uint64                `json:"seed,omitempty"`
}

// kdeModes are the ECE^KDE modes reported, in order.
var kdeModes = []struct {
	name string
	mode metrics.KDEMode
}{{"canonical", metrics.KDECanonical}, {"top-label", metrics.KDETopLabel}, {"marginal", metrics.KDEMarginal}}

// runEval is "ecl eval": every calibration metric of given predictions,
// optionally with bootstrap intervals and reliability diagrams.
func runEval(args []string) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	probsPath := fs.String("probs", "", "predictions [N, K]: CSV or .npy (required)")
	labelsPath := fs.String("labels", "", "class labels [N]: CSV, text (one per line) or .npy (required)")
	logits := fs.Bool("logits", false, "the predictions are logits: apply softmax")
	nbins := fs.Int("bins", metrics.DefaultBins, "number of bins (canonical: anchors requested)")
	scheme := fs.String("scheme", "width", "bins of equal `width` or equal mass")
	reference := fs.Bool("reference", false, "the reference metrics.py conventions (bins with ≤5 samples left out, confidence 0 in no bin, float32 anchors)")
	boot := fs.Int("bootstrap", 0, "bootstrap resamples for 95% intervals of ECE, CwECE and canonical ECE (0: none)")
	seed := fs.Uint64("seed", 1, "seed of the bootstrap")
	kde := fs.Bool("kde", true, "compute ECE^KDE (costs O(N²K))")
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
	case *nbins < 1:
		return fmt.Errorf("-bins %d: need at least 1", *nbins)
	case *boot < 0:
		return fmt.Errorf("-bootstrap %d: negative", *boot)
	}
	o := metrics.Options{Bins: *nbins}
	if *reference {
		o = metrics.ReferenceOptions()
		o.Bins = *nbins
	}
	switch *scheme {
	case "width":
	case "mass":
		o.Scheme = metrics.EqualMass
	default:
		return fmt.Errorf("-scheme %q: want width or mass", *scheme)
	}
	probs, k, labels, err := readPredictions(*probsPath, *labelsPath, *logits)
	if err != nil {
		return err
	}
	rep, cals, err := evaluate(probs, k, labels, o, *kde)
	if err != nil {
		return err
	}
	rep.Probs, rep.Labels, rep.Scheme, rep.Reference = *probsPath, *labelsPath, *scheme, *reference
	if *boot > 0 {
		rep.CI, rep.Bootstrap, rep.Seed = bootstrap(probs, k, labels, o, *boot, *seed), *boot, *seed
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

// readPredictions reads and checks the [N, K] probabilities (softmax of
// logits when logits is set) and N labels in [0, K), with errors naming the
// file at fault.
func readPredictions(probsPath, labelsPath string, logits bool) (probs []float64, k int, labels []int, err error) {
	probs, n, k, err := arrays.Read(probsPath)
	if err != nil {
		return nil, 0, nil, err
	}
	if k < 2 {
		return nil, 0, nil, fmt.Errorf("%s: %d column, want one per class (at least 2)", probsPath, k)
	}
	if logits {
		err = softmaxRows(probsPath, probs, k)
	} else {
		err = checkProbs(probsPath, probs, k)
	}
	if err != nil {
		return nil, 0, nil, err
	}
	if labels, err = arrays.ReadLabels(labelsPath); err != nil {
		return nil, 0, nil, err
	}
	if len(labels) != n {
		return nil, 0, nil, fmt.Errorf("%s: %d labels for the %d rows of %s", labelsPath, len(labels), n, probsPath)
	}
	for i, y := range labels {
		if y < 0 || y >= k {
			return nil, 0, nil, fmt.Errorf("%s: row %d: label %d outside [0, %d) (%s has %d columns)", labelsPath, i+1, y, k, probsPath, k)
		}
	}
	return probs, k, labels, nil
}

// softmaxRows replaces each row of logits by its softmax (the engine's
// stable one); logits must be finite.
func softmaxRows(path string, x []float64, k int) error {
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s: row %d, column %d: logit %v is not finite", path, i/k+1, i%k+1, v)
		}
	}
	copy(x, tensor.Softmax(tensor.FromSlice(x, len(x)/k, k), 1).Data())
	return nil
}

// checkProbs checks that every row holds probabilities summing to 1 within
// 1e-6.
func checkProbs(path string, p []float64, k int) error {
	for i := 0; i < len(p); i += k {
		s := 0.0
		for j, v := range p[i : i+k] {
			if !(v >= 0 && v <= 1) {
				return fmt.Errorf("%s: row %d, column %d: %v is not a probability (use -logits for logits)", path, i/k+1, j+1, v)
			}
			s += v
		}
		if math.Abs(s-1) > 1e-6 {
			return fmt.Errorf("%s: row %d sums to %v, not 1 (use -logits for logits)", path, i/k+1, s)
		}
	}
	return nil
}

// calibrations holds the binned results that the diagrams draw.
type calibrations struct {
	top metrics.Calibration
	cw  metrics.Classwise
	can metrics.Canonical
}

// evaluate computes every metric of checked predictions; ECE^KDE only when
// kde is set.
func evaluate(probs []float64, k int, labels []int, o metrics.Options, kde bool) (evalReport, calibrations, error) {
	r := evalReport{N: len(labels), K: k, Bins: o.Bins}
	var c calibrations
	withNorm := func(norm metrics.Norm, dst *float64) func() error {
		return func() error {
			on := o
			on.Norm = norm
			cal, err := metrics.ECE(probs, k, labels, on)
			*dst = cal.Error
			return err
		}
	}
	steps := []func() error{
		func() (err error) { r.ACC, err = metrics.Accuracy(probs, k, labels); return err },
		func() (err error) { c.top, err = metrics.ECE(probs, k, labels, o); r.ECE = c.top.Error; return err },
		withNorm(metrics.Max, &r.MCE),
		withNorm(metrics.L2, &r.ECEL2),
		func() (err error) { r.DebiasedL2, err = metrics.DebiasedL2ECE(probs, k, labels, o); return err },
		func() (err error) {
			c.cw, err = metrics.ClasswiseECE(probs, k, labels, o)
			r.CwECE = c.cw.Error
			return err
		},
		func() (err error) {
			c.can, err = metrics.CanonicalECE(probs, k, labels, o)
			r.CanECE = c.can.Error
			return err
		},
		func() (err error) { r.NLL, err = metrics.NLL(probs, k, labels); return err },
		func() (err error) { r.Brier, err = metrics.Brier(probs, k, labels); return err },
	}
	if kde {
		steps = append(steps, func() error { return kdeAll(&r, probs, k, labels) })
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return evalReport{}, calibrations{}, err
		}
	}
	return r, c, nil
}

// kdeAll fills r's ECE^KDE of every mode, selecting the bandwidth once.
func kdeAll(r *evalReport, probs []float64, k int, labels []int) error {
	if len(labels) < 2 {
		return nil // the leave-one-out estimate needs two samples
	}
	h, err := metrics.KDEBandwidth(probs, k)
	if err != nil {
		return err
	}
	r.KDE, r.KDEBandwidth = map[string]float64{}, h
	for _, m := range kdeModes {
		res, err := metrics.ECEKDE(probs, k, labels, metrics.KDEOptions{Mode: m.mode, Bandwidth: h})
		if err != nil {
			return err
		}
		r.KDE[m.name] = res.Value
	}
	return nil
}

// bootstrap returns 95% percentile intervals of the three binned errors.
// Each metric draws the same resamples from its own generator seeded with
// seed, so the intervals do not depend on one another.
func bootstrap(probs []float64, k int, labels []int, o metrics.Options, reps int, seed uint64) map[string][2]float64 {
	stats := []struct {
		name string
		f    func(p []float64, y []int) (float64, error)
	}{
		{"ece", func(p []float64, y []int) (float64, error) { c, err := metrics.ECE(p, k, y, o); return c.Error, err }},
		{"cwece", func(p []float64, y []int) (float64, error) {
			c, err := metrics.ClasswiseECE(p, k, y, o)
			return c.Error, err
		}},
		{"canonical_ece", func(p []float64, y []int) (float64, error) {
			c, err := metrics.CanonicalECE(p, k, y, o)
			return c.Error, err
		}},
	}
	ci := map[string][2]float64{}
	for _, s := range stats {
		lo, hi := metrics.Bootstrap(len(labels), func(idx []int) float64 {
			v, err := s.f(metrics.Subset(probs, k, labels, idx))
			if err != nil {
				return math.NaN() // left out by Bootstrap
			}
			return v
		}, reps, 0.95, rand.New(rand.NewPCG(seed, 0)))
		ci[s.name] = [2]float64{lo, hi}
	}
	return ci
}

// printReport prints r as a table, calibration errors in %.
func printReport(w io.Writer, r evalReport) {
	ref := ""
	if r.Reference {
		ref = ", reference conventions"
	}
	fmt.Fprintf(w, "%s (labels %s): %d samples, %d classes; %d %s bins%s\n", r.Probs, r.Labels, r.N, r.K, r.Bins, r.Scheme, ref)
	line := func(name string, v float64, note string) { fmt.Fprintf(w, "  %-22s %8.3f %%%s\n", name, 100*v, note) }
	interval := func(name string) string {
		if c, ok := r.CI[name]; ok {
			return fmt.Sprintf("   95%% CI [%.3f, %.3f] (%d resamples)", 100*c[0], 100*c[1], r.Bootstrap)
		}
		return ""
	}
	line("ACC", r.ACC, "")
	line("ECE (top-label, L1)", r.ECE, interval("ece"))
	line("MCE", r.MCE, "")
	line("ECE L2", r.ECEL2, "")
	line("debiased ECE L2", r.DebiasedL2, "")
	line("CwECE", r.CwECE, interval("cwece"))
	line("canonical ECE", r.CanECE, interval("canonical_ece"))
	if r.KDE != nil {
		for _, m := range kdeModes {
			line("ECE^KDE "+m.name, r.KDE[m.name], fmt.Sprintf("   bandwidth %.4g", r.KDEBandwidth))
		}
	}
	fmt.Fprintf(w, "  %-22s %8.4f\n", "NLL", r.NLL)
	line("Brier", r.Brier, "")
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
