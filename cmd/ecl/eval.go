package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/ecl-go/ecl/datasets/arrays"
	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/ecl/plot"
)

// evalReport is every metric of one set of predictions (fractions; the
// text output prints them ×100).
type evalReport struct {
	N, K                      int
	ACC, ECE, MCE, ECEL2      float64
	DebiasedL2, CwECE, CanECE float64
	KDECanonical, KDETopLabel float64
	KDEMarginal               float64
	Bandwidths                map[string]float64
	NLL, Brier                float64
	CI                        map[string][2]float64 `json:",omitempty"`
}

func runEval(args []string) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	probsPath := fs.String("probs", "", "predictions [N, K]: CSV or .npy (required)")
	labelsPath := fs.String("labels", "", "class labels [N]: CSV, text or .npy (required)")
	logits := fs.Bool("logits", false, "the predictions are logits: apply softmax")
	bins := fs.Int("bins", 15, "number of bins")
	scheme := fs.String("scheme", "width", "bins of equal width or equal mass")
	reference := fs.Bool("reference", false, "the reference metrics.py conventions (bins with ≤5 samples dropped, 0 in no bin)")
	boot := fs.Int("bootstrap", 0, "bootstrap resamples for 95% intervals of ECE, CwECE and canonical ECE (0: none)")
	seed := fs.Uint64("seed", 1, "seed of the bootstrap")
	out := fs.String("out", "", "directory for reliability diagrams (empty: none)")
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *probsPath == "" || *labelsPath == "" {
		return fmt.Errorf("-probs and -labels are required")
	}
	probs, n, k, err := arrays.Read(*probsPath)
	if err != nil {
		return err
	}
	labels, err := arrays.ReadLabels(*labelsPath)
	if err != nil {
		return err
	}
	if len(labels) != n {
		return fmt.Errorf("%s has %d labels for the %d rows of %s", *labelsPath, len(labels), n, *probsPath)
	}
	if *logits {
		softmaxRows(probs, k)
	} else if err := checkProbs(*probsPath, probs, k); err != nil {
		return err
	}
	o := metrics.Options{Bins: *bins}
	if *reference {
		o = metrics.ReferenceOptions()
		o.Bins = *bins
	}
	switch *scheme {
	case "width":
	case "mass":
		o.Scheme = metrics.EqualMass
	default:
		return fmt.Errorf("-scheme %q: want width or mass", *scheme)
	}
	rep, cals, err := evaluate(probs, k, labels, o)
	if err != nil {
		return err
	}
	if *boot > 0 {
		rep.CI = bootstrap(probs, k, labels, o, *boot, rand.New(rand.NewPCG(*seed, 0)))
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
		return writeDiagrams(*out, "", cals)
	}
	return nil
}

// calibrations holds the binned results that the diagrams draw.
type calibrations struct {
	top metrics.Calibration
	cw  metrics.Classwise
	can metrics.Canonical
}

func evaluate(probs []float64, k int, labels []int, o metrics.Options) (evalReport, calibrations, error) {
	r := evalReport{N: len(labels), K: k, Bandwidths: map[string]float64{}}
	var c calibrations
	var err error
	keep := func(e error) {
		if err == nil {
			err = e
		}
	}
	var e error
	c.top, e = metrics.ECE(probs, k, labels, o)
	keep(e)
	r.ECE = c.top.Error
	for _, v := range []struct {
		norm metrics.Norm
		dst  *float64
	}{{metrics.Max, &r.MCE}, {metrics.L2, &r.ECEL2}} {
		oo := o
		oo.Norm = v.norm
		cal, e := metrics.ECE(probs, k, labels, oo)
		keep(e)
		*v.dst = cal.Error
	}
	r.DebiasedL2, e = metrics.DebiasedL2ECE(probs, k, labels, o)
	keep(e)
	c.cw, e = metrics.ClasswiseECE(probs, k, labels, o)
	keep(e)
	r.CwECE = c.cw.Error
	if k >= 2 {
		c.can, e = metrics.CanonicalECE(probs, k, labels, o)
		keep(e)
		r.CanECE = c.can.Error
		for name, v := range map[string]struct {
			mode metrics.KDEMode
			dst  *float64
		}{"canonical": {metrics.KDECanonical, &r.KDECanonical}, "toplabel": {metrics.KDETopLabel, &r.KDETopLabel}, "marginal": {metrics.KDEMarginal, &r.KDEMarginal}} {
			kde, e := metrics.ECEKDE(probs, k, labels, metrics.KDEOptions{Mode: v.mode})
			keep(e)
			*v.dst, r.Bandwidths[name] = kde.Value, kde.Bandwidth
		}
	}
	r.ACC, e = metrics.Accuracy(probs, k, labels)
	keep(e)
	r.NLL, e = metrics.NLL(probs, k, labels)
	keep(e)
	r.Brier, e = metrics.Brier(probs, k, labels)
	keep(e)
	return r, c, err
}

// bootstrap gives 95% percentile intervals of the three binned errors.
func bootstrap(probs []float64, k int, labels []int, o metrics.Options, reps int, rng *rand.Rand) map[string][2]float64 {
	ci := map[string][2]float64{}
	for name, f := range map[string]func(p []float64, y []int) float64{
		"ECE":    func(p []float64, y []int) float64 { c, _ := metrics.ECE(p, k, y, o); return c.Error },
		"CwECE":  func(p []float64, y []int) float64 { c, _ := metrics.ClasswiseECE(p, k, y, o); return c.Error },
		"CanECE": func(p []float64, y []int) float64 { c, _ := metrics.CanonicalECE(p, k, y, o); return c.Error },
	} {
		lo, hi := metrics.Bootstrap(len(labels), func(idx []int) float64 {
			return f(metrics.Subset(probs, k, labels, idx))
		}, reps, 0.95, rng)
		ci[name] = [2]float64{lo, hi}
	}
	return ci
}

func printReport(w io.Writer, r evalReport) {
	fmt.Fprintf(w, "%d samples, %d classes (calibration errors in %%)\n", r.N, r.K)
	line := func(name string, v float64, ci string) { fmt.Fprintf(w, "  %-22s %8.3f%s\n", name, 100*v, ci) }
	interval := func(name string) string {
		if c, ok := r.CI[name]; ok {
			return fmt.Sprintf("   95%% CI [%.3f, %.3f]", 100*c[0], 100*c[1])
		}
		return ""
	}
	line("ACC", r.ACC, "")
	line("ECE (top-label, L1)", r.ECE, interval("ECE"))
	line("MCE", r.MCE, "")
	line("ECE L2", r.ECEL2, "")
	line("debiased ECE L2", r.DebiasedL2, "")
	line("CwECE", r.CwECE, interval("CwECE"))
	line("canonical ECE", r.CanECE, interval("CanECE"))
	for _, m := range []string{"canonical", "toplabel", "marginal"} {
		v := map[string]float64{"canonical": r.KDECanonical, "toplabel": r.KDETopLabel, "marginal": r.KDEMarginal}[m]
		line("ECE^KDE "+m, v, fmt.Sprintf("   bandwidth %.3g", r.Bandwidths[m]))
	}
	fmt.Fprintf(w, "  %-22s %8.4f\n", "NLL", r.NLL)
	line("Brier", r.Brier, "")
}

// writeDiagrams writes the top-label, class-wise and (for K = 3) canonical
// reliability diagrams as PNG and SVG into dir, names prefixed by prefix.
func writeDiagrams(dir, prefix string, c calibrations) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	title := strings.TrimSuffix(prefix, "-")
	figs := map[string]func() (plot.Figure, error){
		"top-label": func() (plot.Figure, error) { return plot.TopLabel(c.top, title) },
		"classwise": func() (plot.Figure, error) { return plot.Classwise(c.cw, title) },
	}
	if c.can.K == 3 {
		figs["canonical"] = func() (plot.Figure, error) { return plot.Canonical(c.can, title) }
	}
	for name, f := range figs {
		fig, err := f()
		if err != nil {
			return err
		}
		for _, ext := range []string{".png", ".svg"} {
			if err := plot.Save(fig, filepath.Join(dir, prefix+name+ext), 10*vg.Centimeter, 9*vg.Centimeter); err != nil {
				return err
			}
		}
	}
	return nil
}

func softmaxRows(x []float64, k int) {
	for i := 0; i < len(x); i += k {
		row := x[i : i+k]
		m := math.Inf(-1)
		for _, v := range row {
			m = max(m, v)
		}
		s := 0.0
		for j, v := range row {
			row[j] = math.Exp(v - m)
			s += row[j]
		}
		for j := range row {
			row[j] /= s
		}
	}
}

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
