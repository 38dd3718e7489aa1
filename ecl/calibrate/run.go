package calibrate

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/ecl-go/ecl/datasets/arrays"
	"github.com/ecl-go/ecl/ecl/calib"
	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/ecl/plot"
	"github.com/ecl-go/ecl/ecl/predict"
	"github.com/ecl-go/ecl/internal/atomicfile"
)

// Run fits every method of c on the source, writes each one's calibrated
// target probabilities, parameters and (with target labels) diagrams into
// c.Dir, prints the diagnostics and the table to w and returns the report.
// Methods are fitted concurrently, up to Config.Jobs at a time and one of
// the heavy ones (the ECL head, Dirichlet, matrix scaling) at a time; the
// report and the table keep their order.
func Run(w io.Writer, c Config) (*Report, error) {
	src, tgt, k := c.Source, c.Target, c.Source.K
	rep := &Report{Source: src, Target: tgt, Classes: k, Bins: c.Bins, Bootstrap: c.Bootstrap, Seed: c.Seed, EstimateFolds: c.Folds}
	f := calib.FitData{Logits: src.Logits, Labels: c.SourceLabels, Target: tgt.Logits, Features: c.SourceFeatures, TargetFeatures: c.TargetFeatures, K: k, D: c.D}
	// The domain classifier reads the features, or else the logits.
	ds, dt, dd := c.SourceFeatures, c.TargetFeatures, c.D
	rep.DomainOn = "features"
	if c.SourceFeatures == nil {
		ds, dt, dd = src.Logits, tgt.Logits, k
		rep.DomainOn = "logits"
	}
	var err error
	dopt := calib.DomainOptions{Clip: c.Clip, Seed: c.Seed}
	if f.W, rep.Shift, err = calib.DomainWeights(ds, dt, dd, dopt); err != nil {
		return nil, err
	}
	if slices.Contains(c.Methods, "transcal") {
		dopt.Balance = true
		if f.WBalanced, err = calib.ImportanceWeights(ds, dt, dd, dopt); err != nil {
			return nil, err
		}
	}
	pseudo := c.Pseudo
	rep.Pseudo = "the model's outputs on mixed target inputs (-pseudo-logits)"
	if pseudo == nil {
		set, err := calib.PseudoTarget(tgt.Logits, k, c.PseudoBatch, c.Seed)
		if err != nil {
			return nil, err
		}
		pseudo = &set
		rep.Pseudo = "mixup of target logits"
		rep.Notes = append(rep.Notes, "pseudo-target estimate from a mixup of target LOGITS: the mixed logits stand for the model's output on mixed inputs only for a model linear in its input, and their pseudo-labels mostly agree with their predictions, so this estimate favours over-confident maps; for PseudoCal's estimate pass the model's outputs on mixed inputs with -pseudo-logits/-pseudo-labels (docs/calibrate.md)")
	}
	rep.PseudoSamples = len(pseudo.Labels)
	printInputs(w, rep)
	printShift(w, rep)

	// Cross-fitting folds of the source for the importance-weighted
	// estimate: each fold is predicted by the method fitted on the others.
	fold := calib.Folds(len(c.SourceLabels), c.Folds, c.Seed)
	methods := append([]string{"uncal"}, c.Methods...)
	rep.Methods = make([]MethodReport, len(methods))
	errs := make([]error, len(methods))
	schedule(methods, c.Jobs, func(i int) {
		start := time.Now()
		rep.Methods[i], errs[i] = method(methods[i], f, fold, *pseudo, c, src.Kind)
		c.log(fmt.Sprintf("%s done in %.1f s", methods[i], time.Since(start).Seconds()))
	})
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("%s: %w", methods[i], err)
		}
	}
	if c.SourceFeatures == nil && slices.Contains(c.Methods, "ecl") {
		rep.Notes = append(rep.Notes, "ecl: without features the auxiliary P(Y|X) is fitted on the logits, so the ECL term adds little to the source cross-entropy")
	}
	labelled := c.TargetLabels != nil
	printMethods(w, rep, labelled)
	printODIR(w, rep)
	for _, n := range rep.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	fmt.Fprintf(w, "written to %s: report.json, target_probs_METHOD.npy, params_METHOD.json", c.Dir)
	if labelled && c.Diagrams {
		fmt.Fprint(w, ", diagrams/")
	}
	fmt.Fprintln(w)
	return rep, nil
}

// fitCost ranks the methods whose fits usually take longest: the ECL
// head and the affine maps fit k² (or d·k) parameters three times (the
// target's map and the estimate's folds) in GEMMs that use every core,
// TransCal searches hundreds of temperatures. The rest take seconds.
var fitCost = map[string]int{"ecl": 4, "dirichlet": 3, "ms": 2, "transcal": 1}

// heavy reports whether m's fits are products over every core (fitCost ≥
// 2): two of them side by side only share the cores and the caches, and
// each holds the most memory.
func heavy(m string) bool { return fitCost[m] >= 2 }

// schedule calls run(i) for each of methods, at most jobs at a time and at
// most one heavy method at a time; a free slot takes the first method that
// may start, in the order of longestFirst (so the longest fits do not
// start last and run alone).
func schedule(methods []string, jobs int, run func(i int)) {
	pending := longestFirst(methods)
	done := make(chan int)
	running, heavyOn := 0, false
	for len(pending) > 0 || running > 0 {
		for running < max(jobs, 1) {
			j := slices.IndexFunc(pending, func(i int) bool { return !heavyOn || !heavy(methods[i]) })
			if j < 0 {
				break
			}
			i := pending[j]
			pending = slices.Delete(pending, j, j+1)
			running++
			heavyOn = heavyOn || heavy(methods[i])
			go func() { run(i); done <- i }()
		}
		i := <-done
		running--
		if heavy(methods[i]) {
			heavyOn = false
		}
	}
}

// longestFirst returns the indices of methods by fitCost, longest first,
// otherwise in their order.
func longestFirst(methods []string) []int {
	order := make([]int, len(methods))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return fitCost[methods[b]] - fitCost[methods[a]] })
	return order
}

// method fits m on all source samples, calibrates the target and computes
// the estimates; "uncal" is the identity (temperature 1).
func method(m string, f calib.FitData, fold []int, pseudo calib.PseudoSet, cfg Config, input string) (MethodReport, error) {
	k := f.K
	yt := cfg.TargetLabels
	c, err := calib.Fit(m, f, cfg.Fit)
	if err != nil {
		return MethodReport{}, err
	}
	mr := MethodReport{Method: m}
	// The estimate's folds refit at the penalties chosen on all the source
	// rather than searching again in each.
	fitFolds := cfg.Fit
	if a, ok := c.(*calib.Affine); ok && a.ODIR != nil {
		mr.ODIR, mr.ODIRCV = a.ODIR, a.CV
		fitFolds.ODIR, fitFolds.ODIRCV = *a.ODIR, nil
	}
	if m != "uncal" {
		saved, err := calib.Save(m, k, input, c)
		if err != nil {
			return mr, err
		}
		mr.Params = saved
		if err := atomicfile.Write(filepath.Join(cfg.Dir, "params_"+m+".json"), func(w io.Writer) error {
			_, err := w.Write(append(saved, '\n'))
			return err
		}); err != nil {
			return mr, err
		}
	}
	pt, err := c.Apply(f.Target, k)
	if err != nil {
		return mr, err
	}
	mr.ProbsFile = "target_probs_" + m + ".npy"
	if err := arrays.WriteNPY(filepath.Join(cfg.Dir, mr.ProbsFile), pt, len(pt)/k, k); err != nil {
		return mr, err
	}
	// The target's metrics come first: each n×k array is garbage once used,
	// and only one is live at a time.
	if yt != nil {
		if err := targetMetrics(&mr, m, pt, k, yt, cfg); err != nil {
			return mr, err
		}
	}
	// Out-of-fold source predictions for the importance-weighted estimate,
	// and the pseudo-target's, as top-label confidences: the estimates read
	// nothing else.
	var conf, correct []float64
	if cfg.Folds == 1 || m == "uncal" {
		conf, correct, err = calib.ApplyTopLabel(c, f.Logits, k, f.Labels)
	} else {
		conf, correct, err = calib.CrossFit(m, f, fold, cfg.Folds, fitFolds)
	}
	if err != nil {
		return mr, err
	}
	if mr.IWECE, err = calib.TopLabelInterval(conf, correct, f.W, cfg.Bins, cfg.Bootstrap, 0.95, cfg.Seed); err != nil {
		return mr, err
	}
	if conf, correct, err = pseudo.TopLabel(c, k); err != nil {
		return mr, err
	}
	if mr.PseudoECE, err = calib.TopLabelInterval(conf, correct, nil, cfg.Bins, cfg.Bootstrap, 0.95, cfg.Seed); err != nil {
		return mr, err
	}
	return mr, nil
}

// targetMetrics adds the metrics of the calibrated target probabilities pt
// against the labels yt to mr, and writes their diagrams.
func targetMetrics(mr *MethodReport, m string, pt []float64, k int, yt []int, cfg Config) error {
	r, cals, err := metrics.NewReport(pt, k, yt, metrics.Options{Bins: cfg.Bins}, false, metrics.CanonicalAffordable(cfg.Bins, k))
	if err != nil {
		return err
	}
	r.Probs, r.Scheme = mr.ProbsFile, "width"
	mr.Target = &r
	iv, err := calib.ECEInterval(pt, k, yt, nil, cfg.Bins, cfg.Bootstrap, 0.95, cfg.Seed)
	if err != nil {
		return err
	}
	mr.TargetECE = &iv
	if cfg.Diagrams {
		if err := plot.WriteDiagrams(filepath.Join(cfg.Dir, "diagrams"), m+"-", m+" on the target", cals, plot.DiagramStyle{Scale: 1, DPI: plot.DefaultDPI}); err != nil {
			return err
		}
	}
	return nil
}

// ApplyConfig names a saved calibrator (params_METHOD.json), the
// predictions to calibrate, read as Mode (auto, logits or probs), their
// labels (optional), the output directory and the metrics' bins; Warn
// receives what reading the predictions warns of.
type ApplyConfig struct {
	Params, Probs, Labels, Mode, Dir string
	Bins                             int
	Warn                             func([]string)
}

// Apply applies a saved calibrator to a prediction file and writes the
// calibrated probabilities into a.Dir; with labels it prints the metrics
// before and after.
func Apply(w io.Writer, a ApplyConfig) error {
	paramsPath, probsPath, labelsPath, mode, dir, nbins := a.Params, a.Probs, a.Labels, a.Mode, a.Dir, a.Bins
	data, err := os.ReadFile(paramsPath)
	if err != nil {
		return err
	}
	saved, c, err := calib.Load(data)
	if err != nil {
		return fmt.Errorf("%s: %w", paramsPath, err)
	}
	s, err := predict.ReadScores(probsPath, predict.Mode(mode))
	if err != nil {
		return err
	}
	if a.Warn != nil {
		a.Warn(s.Warnings)
	}
	if s.K != saved.Classes {
		return fmt.Errorf("%s has %d classes, the calibrator in %s was fitted on %d", probsPath, s.K, paramsPath, saved.Classes)
	}
	if a, ok := c.(*calib.Affine); ok && a.Space == "logits" && s.Kind != saved.Input {
		return fmt.Errorf("%s: %s reads the logits themselves and was fitted on %s; %s holds %s (pass -input to override the detection)", paramsPath, saved.Method, saved.Input, probsPath, s.Kind)
	}
	fmt.Fprintf(w, "%s: %d×%d, read as %s (%s)\n", s.Path, s.Rows, s.Cols, s.Kind, s.How)
	p, err := c.Apply(s.Logits, s.K)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	name := filepath.Join(dir, "calibrated_"+saved.Method+".npy")
	if err := arrays.WriteNPY(name, p, s.Rows, s.K); err != nil {
		return err
	}
	fmt.Fprintf(w, "%s applied; calibrated probabilities in %s\n", saved.Method, name)
	if labelsPath == "" {
		return nil
	}
	y, err := predict.ReadLabelsFor(labelsPath, s)
	if err != nil {
		return err
	}
	o := metrics.Options{Bins: nbins}
	for _, row := range []struct {
		name  string
		probs []float64
	}{{"before", calib.Softmax(s.Logits, s.K)}, {"after", p}} {
		r, _, err := metrics.NewReport(row.probs, s.K, y, o, false, false)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "  %-6s ACC %6.2f%%  ECE %6.2f%%  CwECE %6.2f%%  NLL %.4f  Brier %6.2f%%\n", row.name, 100*r.ACC, 100*r.ECE, 100*r.CwECE, r.NLL, 100*r.Brier)
	}
	return nil
}

// WriteJSON writes v (a Report) as indented JSON, atomically.
func WriteJSON(path string, v any) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	})
}
