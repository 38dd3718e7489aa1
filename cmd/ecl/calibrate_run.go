package main

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

// calibrateRun fits every method, writes its target probabilities,
// parameters and diagrams into dir, prints the diagnostics and the table to
// w and returns the report.
func calibrateRun(w io.Writer, src, tgt predict.Scores, ys, yt []int, fsrc, ftgt []float64, d int, pseudo *calib.PseudoSet, cfg calibrateConfig, dir string) (*calibrateReport, error) {
	k := src.K
	rep := &calibrateReport{Source: src, Target: tgt, Classes: k, Bins: cfg.bins, Bootstrap: cfg.reps, Seed: cfg.seed, EstimateFolds: cfg.folds}
	f := calib.FitData{Logits: src.Logits, Labels: ys, Target: tgt.Logits, Features: fsrc, TargetFeatures: ftgt, K: k, D: d}
	// The domain classifier reads the features, or else the logits.
	ds, dt, dd := fsrc, ftgt, d
	rep.DomainOn = "features"
	if fsrc == nil {
		ds, dt, dd = src.Logits, tgt.Logits, k
		rep.DomainOn = "logits"
	}
	var err error
	dopt := calib.DomainOptions{Clip: cfg.clip, Seed: cfg.seed}
	if f.W, rep.Shift, err = calib.DomainWeights(ds, dt, dd, dopt); err != nil {
		return nil, err
	}
	if slices.Contains(cfg.methods, "transcal") {
		dopt.Balance = true
		if f.WBalanced, _, err = calib.DomainWeights(ds, dt, dd, dopt); err != nil {
			return nil, err
		}
	}
	rep.Pseudo = "the model's outputs on mixed target inputs (-pseudo-logits)"
	if pseudo == nil {
		set, err := calib.PseudoTarget(tgt.Logits, k, cfg.pseudoBatch, cfg.seed)
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
	fold := calib.Folds(len(ys), cfg.folds, cfg.seed)
	methods := append([]string{"uncal"}, cfg.methods...)
	for _, m := range methods {
		start := time.Now()
		mr, err := calibrateMethod(m, f, fold, *pseudo, yt, cfg, dir, src.Kind)
		fmt.Fprintf(os.Stderr, "ecl calibrate: %s done in %.1f s\n", m, time.Since(start).Seconds())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m, err)
		}
		rep.Methods = append(rep.Methods, mr)
	}
	if fsrc == nil && slices.Contains(cfg.methods, "ecl") {
		rep.Notes = append(rep.Notes, "ecl: without features the auxiliary P(Y|X) is fitted on the logits, so the ECL term adds little to the source cross-entropy")
	}
	printMethods(w, rep, yt != nil)
	for _, n := range rep.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	fmt.Fprintf(w, "written to %s: report.json, target_probs_METHOD.npy, params_METHOD.json", dir)
	if yt != nil && cfg.diagrams {
		fmt.Fprint(w, ", diagrams/")
	}
	fmt.Fprintln(w)
	return rep, nil
}

// calibrateMethod fits m on all source samples, calibrates the target and
// computes the estimates; "uncal" is the identity (temperature 1).
func calibrateMethod(m string, f calib.FitData, fold []int, pseudo calib.PseudoSet, yt []int, cfg calibrateConfig, dir, input string) (methodReport, error) {
	k := f.K
	c, err := calib.Fit(m, f, cfg.fit)
	if err != nil {
		return methodReport{}, err
	}
	mr := methodReport{Method: m}
	if m != "uncal" {
		saved, err := calib.Save(m, k, input, c)
		if err != nil {
			return mr, err
		}
		mr.Params = saved
		if err := atomicfile.Write(filepath.Join(dir, "params_"+m+".json"), func(w io.Writer) error {
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
	if err := arrays.WriteNPY(filepath.Join(dir, mr.ProbsFile), pt, len(pt)/k, k); err != nil {
		return mr, err
	}
	// Out-of-fold source predictions for the importance-weighted estimate.
	var ps []float64
	if cfg.folds == 1 || m == "uncal" {
		ps, err = c.Apply(f.Logits, k)
	} else {
		ps, err = calib.CrossFit(m, f, fold, cfg.folds, cfg.fit)
	}
	if err != nil {
		return mr, err
	}
	if mr.IWECE, err = calib.ECEInterval(ps, k, f.Labels, f.W, cfg.bins, cfg.reps, 0.95, cfg.seed); err != nil {
		return mr, err
	}
	pp, err := c.Apply(pseudo.Logits, k)
	if err != nil {
		return mr, err
	}
	if mr.PseudoECE, err = calib.ECEInterval(pp, k, pseudo.Labels, nil, cfg.bins, cfg.reps, 0.95, cfg.seed); err != nil {
		return mr, err
	}
	if yt == nil {
		return mr, nil
	}
	r, cals, err := metrics.NewReport(pt, k, yt, metrics.Options{Bins: cfg.bins}, false, metrics.CanonicalAffordable(cfg.bins, k))
	if err != nil {
		return mr, err
	}
	r.Probs, r.Scheme = mr.ProbsFile, "width"
	mr.Target = &r
	iv, err := calib.ECEInterval(pt, k, yt, nil, cfg.bins, cfg.reps, 0.95, cfg.seed)
	if err != nil {
		return mr, err
	}
	mr.TargetECE = &iv
	if cfg.diagrams {
		if err := writeDiagrams(filepath.Join(dir, "diagrams"), m+"-", m+" on the target", cals, diagramStyle{Scale: 1, DPI: plot.DefaultDPI}); err != nil {
			return mr, err
		}
	}
	return mr, nil
}

// applySaved applies a saved calibrator to a prediction file and writes the
// calibrated probabilities into dir; with labels it prints the metrics
// before and after.
func applySaved(w io.Writer, paramsPath, probsPath, labelsPath, mode, dir string, nbins int) error {
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
	warn(s.Warnings)
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

// writeJSON writes v as indented JSON, atomically.
func writeJSON(path string, v any) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	})
}
