package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ecl-go/ecl/datasets/arrays"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/ecl/calib"
	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/ecl/plot"
	"github.com/ecl-go/ecl/internal/atomicfile"
)

// The registration lives here rather than in main.go's map literal, whose
// gofmt alignment would change every line of it.
func init() { commands["calibrate"] = runCalibrate }

// calibrateMethods are the methods of "ecl calibrate", in table order.
var calibrateMethods = []string{"ts", "vs", "ms", "dirichlet", "hist", "isotonic", "platt", "beta", "iwts", "cpcs", "transcal", "ecl"}

// binaryOnly are the methods defined for two classes only.
var binaryOnly = map[string]bool{"platt": true, "beta": true}

// scores is one prediction file read as logits.
type scores struct {
	Path   string `json:"path"`
	Rows   int    `json:"rows"`
	Cols   int    `json:"columns"`
	Kind   string `json:"kind"` // "logits" or "probabilities"
	How    string `json:"detected"`
	logits []float64
	k      int
}

// calibrateConfig holds the flags of a fitting run.
type calibrateConfig struct {
	methods     []string
	bins, reps  int
	folds       int
	seed        uint64
	clip        float64
	odir        calib.ODIR
	histBins    int
	pseudoBatch int
	ecl         calib.ECLOptions
	diagrams    bool
	platt       calib.PlattTargets
}

// methodReport is one method's results; metrics are fractions.
type methodReport struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
	// Target holds every metric of the calibrated target predictions
	// (with target labels only); TargetECE the ECE with its interval.
	Target    *evalReport     `json:"target,omitempty"`
	TargetECE *calib.Interval `json:"target_ece,omitempty"`
	// Label-free estimates of the target ECE.
	IWECE     calib.Interval `json:"iw_source_ece"`
	PseudoECE calib.Interval `json:"pseudo_target_ece"`
	ProbsFile string         `json:"probs_file"`
}

// calibrateReport is report.json.
type calibrateReport struct {
	Source        scores                 `json:"source"`
	Target        scores                 `json:"target"`
	Classes       int                    `json:"classes"`
	TargetLabels  string                 `json:"target_labels,omitempty"`
	DomainOn      string                 `json:"domain_classifier_on"`
	Shift         calib.ShiftDiagnostics `json:"shift"`
	Pseudo        string                 `json:"pseudo_target_from"`
	PseudoSamples int                    `json:"pseudo_target_samples"`
	EstimateFolds int                    `json:"estimate_folds"`
	Bins          int                    `json:"bins"`
	Bootstrap     int                    `json:"bootstrap"`
	Seed          uint64                 `json:"seed"`
	Methods       []methodReport         `json:"methods"`
	Notes         []string               `json:"notes,omitempty"`
}

// runCalibrate is "ecl calibrate": fit calibrators on source-validation
// predictions (and unlabelled target predictions) and calibrate the target,
// or with -apply, apply a saved calibrator to new predictions.
func runCalibrate(args []string) error {
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	srcPath := fs.String("source", "", "source-validation predictions [N, K] or binary [N]: logits or probabilities (.npy or CSV)")
	srcLabels := fs.String("source-labels", "", "source-validation labels [N]")
	tgtPath := fs.String("target", "", "target predictions [M, K] (unlabelled)")
	tgtLabels := fs.String("target-labels", "", "target labels [M], only to report the true metrics beside the estimates (optional)")
	srcFeat := fs.String("source-features", "", "source-validation features [N, D] for the domain classifier and the ECL head (optional)")
	tgtFeat := fs.String("target-features", "", "target features [M, D] (with -source-features)")
	input := fs.String("input", "auto", "what the prediction files hold: auto (detect), logits or probs")
	methodList := fs.String("method", "all", "comma-separated methods from "+strings.Join(calibrateMethods, ",")+", or all")
	out := fs.String("out", "", "output directory (required)")
	nbins := fs.Int("bins", metrics.DefaultBins, "bins of the ECE estimates and metrics")
	reps := fs.Int("bootstrap", 200, "bootstrap resamples of the ECE intervals (0: none)")
	folds := fs.Int("estimate-folds", 2, "cross-fitting folds of the importance-weighted estimate (1: on the fitting samples)")
	seed := fs.Uint64("seed", 1, "seed of every random choice")
	clip := fs.Float64("clip", 20, "upper clip of the importance weights")
	lambda := fs.Float64("odir-lambda", 1e-3, "matrix scaling and Dirichlet: off-diagonal penalty λ (Kull et al.'s ODIR)")
	mu := fs.Float64("odir-mu", 1e-3, "vector, matrix scaling and Dirichlet: intercept penalty μ")
	histBins := fs.Int("hist-bins", 15, "histogram binning: equal-mass bins per class")
	plattTargets := fs.String("platt-targets", "labels", "what platt fits: labels (the 0/1 labels, maximum likelihood) or smoothed (Platt's 1999 targets (N₊+1)/(N₊+2) and 1/(N₋+2), as scikit-learn's CalibratedClassifierCV(method=\"sigmoid\"))")
	pseudoBatch := fs.Int("pseudo-batch", 64, "pseudo-target estimate without -pseudo-logits: batch size of the mixup of target logits")
	pseudoLogits := fs.String("pseudo-logits", "", "the model's outputs on mixed-up target inputs (PseudoCal; see docs/calibrate.md), same kind as -target (optional)")
	pseudoLabels := fs.String("pseudo-labels", "", "the pseudo-labels of -pseudo-logits")
	eclHead := fs.String("ecl-head", "ts", "ECL head on the frozen logits: ts (a temperature) or vs (vector scaling)")
	eclParadigm := fs.String("ecl-paradigm", "toplabel", "ECL paradigm: toplabel, classwise or canonical")
	eclLambda := fs.Float64("ecl-lambda", 1, "weight of the ECL term beside the source cross-entropy")
	eclSteps := fs.Int("ecl-steps", 100, "L-BFGS iterations of the ECL head at most")
	noDiagrams := fs.Bool("no-diagrams", false, "skip the reliability diagrams")
	apply := fs.String("apply", "", "a saved calibrator (params_METHOD.json) to apply to -probs instead of fitting")
	probsPath := fs.String("probs", "", "with -apply: the predictions to calibrate")
	labelsPath := fs.String("labels", "", "with -apply: labels of -probs, to report metrics before and after (optional)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *out == "" {
		return errors.New("-out is required")
	}
	if *input != "auto" && *input != "logits" && *input != "probs" {
		return fmt.Errorf("-input %q: want auto, logits or probs", *input)
	}
	if *apply != "" {
		if *probsPath == "" {
			return errors.New("-apply needs -probs")
		}
		return applySaved(os.Stdout, *apply, *probsPath, *labelsPath, *input, *out, *nbins)
	}
	switch {
	case *srcPath == "" || *srcLabels == "" || *tgtPath == "":
		return errors.New("-source, -source-labels and -target are required (or -apply with -probs)")
	case (*srcFeat == "") != (*tgtFeat == ""):
		return errors.New("-source-features and -target-features go together")
	case (*pseudoLogits == "") != (*pseudoLabels == ""):
		return errors.New("-pseudo-logits and -pseudo-labels go together")
	case *nbins < 1 || *histBins < 1:
		return fmt.Errorf("-bins %d, -hist-bins %d: need at least 1", *nbins, *histBins)
	case !(*clip >= 1) || math.IsInf(*clip, 1):
		return fmt.Errorf("-clip %v: want a finite number ≥ 1 (the importance weights' upper clip)", *clip)
	case *reps < 0 || *folds < 1 || *pseudoBatch < 2:
		return fmt.Errorf("-bootstrap %d (≥ 0), -estimate-folds %d (≥ 1), -pseudo-batch %d (≥ 2)", *reps, *folds, *pseudoBatch)
	}
	par, err := ecl.ParseParadigm(*eclParadigm)
	if err != nil {
		return fmt.Errorf("-ecl-paradigm: %w", err)
	}
	platt, err := calib.ParsePlattTargets(*plattTargets)
	if err != nil {
		return fmt.Errorf("-platt-targets %w", err)
	}
	cfg := calibrateConfig{bins: *nbins, reps: *reps, folds: *folds, seed: *seed, clip: *clip,
		odir: calib.ODIR{Lambda: *lambda, Mu: *mu}, histBins: *histBins, pseudoBatch: *pseudoBatch,
		ecl:      calib.ECLOptions{Head: *eclHead, Paradigm: par, Lambda: *eclLambda, Steps: *eclSteps},
		diagrams: !*noDiagrams, platt: platt}
	src, err := readScores(*srcPath, *input)
	if err != nil {
		return err
	}
	tgt, err := readScores(*tgtPath, *input)
	if err != nil {
		return err
	}
	if src.k != tgt.k {
		return fmt.Errorf("%s has %d classes, %s has %d", src.Path, src.k, tgt.Path, tgt.k)
	}
	if cfg.methods, err = parseCalibrateMethods(*methodList, src.k); err != nil {
		return err
	}
	ys, err := readLabelsFor(*srcLabels, src)
	if err != nil {
		return err
	}
	var yt []int
	if *tgtLabels != "" {
		if yt, err = readLabelsFor(*tgtLabels, tgt); err != nil {
			return err
		}
	}
	var fs1, ft []float64
	d := 0
	if *srcFeat != "" {
		if fs1, ft, d, err = readFeatures(*srcFeat, *tgtFeat, src.Rows, tgt.Rows); err != nil {
			return err
		}
	}
	var pseudo *calib.PseudoSet
	if *pseudoLogits != "" {
		ps, err := readScores(*pseudoLogits, *input)
		if err != nil {
			return err
		}
		if ps.k != src.k {
			return fmt.Errorf("%s has %d classes, %s has %d", ps.Path, ps.k, src.Path, src.k)
		}
		py, err := readLabelsFor(*pseudoLabels, ps)
		if err != nil {
			return err
		}
		pseudo = &calib.PseudoSet{Logits: ps.logits, Labels: py}
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	rep, err := calibrateRun(os.Stdout, src, tgt, ys, yt, fs1, ft, d, pseudo, cfg, *out)
	if err != nil {
		return err
	}
	rep.TargetLabels = *tgtLabels
	return writeJSON(filepath.Join(*out, "report.json"), rep)
}

// parseCalibrateMethods expands "all" (the binary-only methods only for
// k = 2) and checks every name.
func parseCalibrateMethods(list string, k int) ([]string, error) {
	if list == "all" {
		var ms []string
		for _, m := range calibrateMethods {
			if k == 2 || !binaryOnly[m] {
				ms = append(ms, m)
			}
		}
		return ms, nil
	}
	var ms []string
	for _, m := range strings.Split(list, ",") {
		m = strings.TrimSpace(m)
		switch {
		case !slices.Contains(calibrateMethods, m):
			return nil, fmt.Errorf("-method: unknown method %q (want %s or all)", m, strings.Join(calibrateMethods, ","))
		case binaryOnly[m] && k != 2:
			return nil, fmt.Errorf("-method %s: defined for two classes, the predictions have %d", m, k)
		case !slices.Contains(ms, m):
			ms = append(ms, m)
		}
	}
	return ms, nil
}

// readArray reads a numeric matrix; every input file goes through it, so a
// format datasets/arrays learns is accepted here too.
func readArray(path string) ([]float64, int, int, error) { return arrays.Read(path) }

// readScores reads predictions and turns them into logits: probabilities p
// become ln p, a single column is P(class 1) or the logit of class 1.
// mode "auto" takes a file as probabilities when every value lies in [0, 1]
// and (with two or more columns) every row sums to 1 within 1e-3.
func readScores(path, mode string) (scores, error) {
	data, rows, cols, err := readArray(path)
	if err != nil {
		return scores{}, err
	}
	s := scores{Path: path, Rows: rows, Cols: cols}
	if rows == 0 {
		return s, fmt.Errorf("%s: no rows", path)
	}
	for i, v := range data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return s, fmt.Errorf("%s: row %d, column %d: %v is not finite", path, i/cols+1, i%cols+1, v)
		}
	}
	inUnit, worst, _ := probStats(data, cols) // worst: the largest |row sum − 1|
	if cols == 1 {
		worst = 0 // one column is P(class 1): no row sum to check
	}
	looksProbs := inUnit && worst <= 1e-3
	switch mode {
	case "auto":
		s.How = "detected"
		if looksProbs {
			s.Kind = "probabilities"
		} else {
			s.Kind = "logits"
		}
		if inUnit && !looksProbs {
			s.How = fmt.Sprintf("detected: values in [0, 1] but rows sum to 1 only within %.3g, so read as logits; pass -input probs to renormalise", worst)
		}
	case "probs":
		if !inUnit {
			return s, fmt.Errorf("%s: -input probs, but values lie outside [0, 1] (logits?)", path)
		}
		s.Kind, s.How = "probabilities", "-input probs"
	case "logits":
		s.Kind, s.How = "logits", "-input logits"
		if looksProbs {
			s.How += " (warning: every row looks like probabilities; the softmax of probabilities is nearly uniform)"
		}
	}
	if s.Kind == "probabilities" && cols > 1 && worst > 1e-12 {
		s.How += fmt.Sprintf("; rows renormalised (largest |sum − 1| = %.2g)", worst)
	}
	s.k = max(cols, 2)
	s.logits = make([]float64, rows*s.k)
	for i := range rows {
		row, z := data[i*cols:(i+1)*cols], s.logits[i*s.k:(i+1)*s.k]
		switch {
		case cols == 1 && s.Kind == "logits":
			z[1] = row[0]
		case cols == 1:
			z[0], z[1] = math.Log(max(1-row[0], calib.ProbFloor)), math.Log(max(row[0], calib.ProbFloor))
		case s.Kind == "logits":
			copy(z, row)
		default:
			sum := 0.0
			for _, v := range row {
				sum += v
			}
			if sum == 0 {
				return s, fmt.Errorf("%s: row %d: probabilities sum to 0", path, i+1)
			}
			for j, v := range row {
				z[j] = math.Log(max(v/sum, calib.ProbFloor))
			}
		}
	}
	if cols == 1 {
		s.How += "; one column: P(class 1) or its logit, two classes"
	}
	return s, nil
}

// readLabelsFor reads labels for the rows of s and checks their range.
func readLabelsFor(path string, s scores) ([]int, error) {
	y, err := arrays.ReadLabels(path)
	if err != nil {
		return nil, err
	}
	if len(y) != s.Rows {
		return nil, fmt.Errorf("%s: %d labels for the %d rows of %s", path, len(y), s.Rows, s.Path)
	}
	for i, v := range y {
		if v < 0 || v >= s.k {
			return nil, fmt.Errorf("%s: row %d: label %d outside [0, %d) (%s has %d classes)", path, i+1, v, s.k, s.Path, s.k)
		}
	}
	return y, nil
}

// readFeatures reads both feature files and checks their shapes.
func readFeatures(srcPath, tgtPath string, ns, nt int) (src, tgt []float64, d int, err error) {
	src, rs, d, err := readArray(srcPath)
	if err != nil {
		return nil, nil, 0, err
	}
	tgt, rt, dt, err := readArray(tgtPath)
	if err != nil {
		return nil, nil, 0, err
	}
	switch {
	case rs != ns:
		return nil, nil, 0, fmt.Errorf("%s: %d rows, the source predictions have %d", srcPath, rs, ns)
	case rt != nt:
		return nil, nil, 0, fmt.Errorf("%s: %d rows, the target predictions have %d", tgtPath, rt, nt)
	case dt != d:
		return nil, nil, 0, fmt.Errorf("%s has %d features, %s has %d", srcPath, d, tgtPath, dt)
	}
	for _, f := range []struct {
		path string
		x    []float64
	}{{srcPath, src}, {tgtPath, tgt}} {
		for i, v := range f.x {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, nil, 0, fmt.Errorf("%s: row %d, column %d: %v is not finite", f.path, i/d+1, i%d+1, v)
			}
		}
	}
	return src, tgt, d, nil
}

// fitData is what a method may fit on: source logits, labels, importance
// weights (plain and from balanced domains), features, and the target.
type fitData struct {
	zs     []float64
	ys     []int
	w, wb  []float64
	fs     []float64
	zt, ft []float64
	k, d   int
}

// subset returns the source rows idx of f (the target unchanged).
func (f fitData) subset(idx []int) fitData {
	g := f
	pick := func(x []float64, width int) []float64 {
		if x == nil {
			return nil
		}
		out := make([]float64, 0, len(idx)*width)
		for _, i := range idx {
			out = append(out, x[i*width:(i+1)*width]...)
		}
		return out
	}
	g.zs, g.w, g.wb, g.fs = pick(f.zs, f.k), pick(f.w, 1), pick(f.wb, 1), pick(f.fs, f.d)
	g.ys = make([]int, len(idx))
	for j, i := range idx {
		g.ys[j] = f.ys[i]
	}
	return g
}

// fitMethod fits one method.
func fitMethod(m string, f fitData, cfg calibrateConfig) (calib.Calibrator, error) {
	k := f.k
	switch m {
	case "ts":
		return calib.FitTemperature(f.zs, k, f.ys, nil)
	case "iwts":
		return calib.FitTemperature(f.zs, k, f.ys, f.w)
	case "cpcs":
		return calib.FitCPCS(f.zs, k, f.ys, f.w)
	case "transcal":
		return calib.FitTransCal(f.zs, k, f.ys, f.wb, f.zt)
	case "vs":
		return calib.FitVectorScaling(f.zs, k, f.ys, cfg.odir.Mu)
	case "ms":
		return calib.FitMatrixScaling(f.zs, k, f.ys, cfg.odir)
	case "dirichlet":
		return calib.FitDirichlet(f.zs, k, f.ys, cfg.odir)
	case "hist":
		return calib.FitHistogram(f.zs, k, f.ys, cfg.histBins, true)
	case "isotonic":
		return calib.FitIsotonic(f.zs, k, f.ys)
	case "platt":
		return calib.FitPlattWith(f.zs, k, f.ys, cfg.platt)
	case "beta":
		return calib.FitBeta(f.zs, k, f.ys)
	case "ecl":
		return calib.FitECLHead(f.zs, k, f.ys, f.zt, f.fs, f.ft, f.d, cfg.ecl)
	}
	return nil, fmt.Errorf("unknown method %q", m)
}

// calibrateRun fits every method, writes its target probabilities,
// parameters and diagrams into dir, prints the diagnostics and the table to
// w and returns the report.
func calibrateRun(w io.Writer, src, tgt scores, ys, yt []int, fsrc, ftgt []float64, d int, pseudo *calib.PseudoSet, cfg calibrateConfig, dir string) (*calibrateReport, error) {
	k := src.k
	rep := &calibrateReport{Source: src, Target: tgt, Classes: k, Bins: cfg.bins, Bootstrap: cfg.reps, Seed: cfg.seed, EstimateFolds: cfg.folds}
	f := fitData{zs: src.logits, ys: ys, zt: tgt.logits, fs: fsrc, ft: ftgt, k: k, d: d}
	// The domain classifier reads the features, or else the logits.
	ds, dt, dd := fsrc, ftgt, d
	rep.DomainOn = "features"
	if fsrc == nil {
		ds, dt, dd = src.logits, tgt.logits, k
		rep.DomainOn = "logits"
	}
	var err error
	dopt := calib.DomainOptions{Clip: cfg.clip, Seed: cfg.seed}
	if f.w, rep.Shift, err = calib.DomainWeights(ds, dt, dd, dopt); err != nil {
		return nil, err
	}
	if slices.Contains(cfg.methods, "transcal") {
		dopt.Balance = true
		if f.wb, _, err = calib.DomainWeights(ds, dt, dd, dopt); err != nil {
			return nil, err
		}
	}
	rep.Pseudo = "the model's outputs on mixed target inputs (-pseudo-logits)"
	if pseudo == nil {
		set, err := calib.PseudoTarget(tgt.logits, k, cfg.pseudoBatch, cfg.seed)
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
	fold := make([]int, len(ys))
	for i, j := range rand.New(rand.NewPCG(cfg.seed, 0xf01d)).Perm(len(ys)) {
		fold[j] = i % cfg.folds
	}
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
func calibrateMethod(m string, f fitData, fold []int, pseudo calib.PseudoSet, yt []int, cfg calibrateConfig, dir, input string) (methodReport, error) {
	k := f.k
	fit := func(g fitData) (calib.Calibrator, error) {
		if m == "uncal" {
			return &calib.Temperature{T: 1}, nil
		}
		return fitMethod(m, g, cfg)
	}
	c, err := fit(f)
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
	pt, err := c.Apply(f.zt, k)
	if err != nil {
		return mr, err
	}
	mr.ProbsFile = "target_probs_" + m + ".npy"
	if err := writeNPY(filepath.Join(dir, mr.ProbsFile), pt, len(pt)/k, k); err != nil {
		return mr, err
	}
	// Out-of-fold source predictions for the importance-weighted estimate.
	ps := make([]float64, len(f.zs))
	if cfg.folds == 1 || m == "uncal" {
		if ps, err = c.Apply(f.zs, k); err != nil {
			return mr, err
		}
	} else {
		for g := range cfg.folds {
			var in, out []int
			for i, fg := range fold {
				if fg == g {
					out = append(out, i)
				} else {
					in = append(in, i)
				}
			}
			cg, err := fit(f.subset(in))
			if err != nil {
				return mr, fmt.Errorf("estimate fold %d: %w", g+1, err)
			}
			pg, err := cg.Apply(f.subset(out).zs, k)
			if err != nil {
				return mr, err
			}
			for j, i := range out {
				copy(ps[i*k:(i+1)*k], pg[j*k:(j+1)*k])
			}
		}
	}
	if mr.IWECE, err = calib.ECEInterval(ps, k, f.ys, f.w, cfg.bins, cfg.reps, 0.95, cfg.seed); err != nil {
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
	r, cals, err := evaluate(pt, k, yt, metrics.Options{Bins: cfg.bins}, false, canonicalAffordable(cfg.bins, k))
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

// printInputs states what was read and how it was interpreted.
func printInputs(w io.Writer, r *calibrateReport) {
	for _, s := range []struct {
		name string
		s    scores
	}{{"source", r.Source}, {"target", r.Target}} {
		fmt.Fprintf(w, "%s: %s, %d×%d, read as %s (%s)\n", s.name, s.s.Path, s.s.Rows, s.s.Cols, s.s.Kind, s.s.How)
	}
	fmt.Fprintf(w, "%d classes\n", r.Classes)
}

// printShift prints the shift diagnostics with a reading of them.
func printShift(w io.Writer, r *calibrateReport) {
	s := r.Shift
	fmt.Fprintf(w, "shift diagnostics (logistic domain classifier on the %s):\n", r.DomainOn)
	reading := "the domains are hard to tell apart: little shift is visible"
	switch {
	case s.AUC > 0.95:
		reading = "the domains are nearly separable: importance weights are extreme, weighted methods (IW-TS, CPCS, TransCal) and the weighted estimate are unreliable"
	case s.AUC > 0.75:
		reading = "a marked shift: weighted methods apply, check the effective sample size"
	case s.AUC > 0.6:
		reading = "a moderate shift"
	}
	fmt.Fprintf(w, "  domain AUC %.3f (%d-fold cross-fitted): %s\n", s.AUC, s.Folds, reading)
	fmt.Fprint(w, "  importance weights p_t/p_s on the source, quantiles:")
	for _, q := range s.Quantiles {
		fmt.Fprintf(w, " q%g=%.3g", 100*q.Q, q.W)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  effective sample size %.0f of %d (%.1f%%); %.1f%% of the weights clipped at %g\n",
		s.ESS, r.Source.Rows, 100*s.ESSFraction, 100*s.ClipRate, s.Clip)
	fmt.Fprintf(w, "pseudo-target set: %d samples, %s\n", r.PseudoSamples, r.Pseudo)
}

// printMethods prints one row per method, errors in %.
func printMethods(w io.Writer, r *calibrateReport, labelled bool) {
	fmt.Fprintf(w, "\ntop-label ECE in %% (%d bins): raw → bias-corrected [95%% basic bootstrap interval, %d resamples, centred on\nthe bias-corrected value, which the raw one may lie above]; label-free estimates from the importance-weighted\nsource (%d-fold cross-fitted) and from the pseudo-target set\n", r.Bins, r.Bootstrap, r.EstimateFolds)
	head := fmt.Sprintf("%-10s %-29s %-29s", "method", "est. IW source ECE", "est. pseudo-target ECE")
	if labelled {
		head += fmt.Sprintf(" %-29s %7s %7s %7s %7s", "true target ECE", "ACC", "CwECE", "NLL", "Brier")
	}
	fmt.Fprintln(w, head)
	iv := func(v calib.Interval) string {
		if v.Reps == 0 {
			return fmt.Sprintf("%6.2f", 100*v.Value)
		}
		return fmt.Sprintf("%6.2f → %5.2f [%5.2f, %5.2f]", 100*v.Value, 100*v.Corrected, 100*v.Lo, 100*v.Hi)
	}
	for _, m := range r.Methods {
		line := fmt.Sprintf("%-10s %-29s %-29s", m.Method, iv(m.IWECE), iv(m.PseudoECE))
		if m.Target != nil {
			line += fmt.Sprintf(" %-29s %7.2f %7.2f %7.4f %7.4f", iv(*m.TargetECE), 100*m.Target.ACC, 100*m.Target.CwECE, m.Target.NLL, m.Target.Brier)
		}
		fmt.Fprintln(w, line)
	}
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
	s, err := readScores(probsPath, mode)
	if err != nil {
		return err
	}
	if s.k != saved.Classes {
		return fmt.Errorf("%s has %d classes, the calibrator in %s was fitted on %d", probsPath, s.k, paramsPath, saved.Classes)
	}
	if a, ok := c.(*calib.Affine); ok && a.Space == "logits" && s.Kind != saved.Input {
		return fmt.Errorf("%s: %s reads the logits themselves and was fitted on %s; %s holds %s (pass -input to override the detection)", paramsPath, saved.Method, saved.Input, probsPath, s.Kind)
	}
	fmt.Fprintf(w, "%s: %d×%d, read as %s (%s)\n", s.Path, s.Rows, s.Cols, s.Kind, s.How)
	p, err := c.Apply(s.logits, s.k)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	name := filepath.Join(dir, "calibrated_"+saved.Method+".npy")
	if err := writeNPY(name, p, s.Rows, s.k); err != nil {
		return err
	}
	fmt.Fprintf(w, "%s applied; calibrated probabilities in %s\n", saved.Method, name)
	if labelsPath == "" {
		return nil
	}
	y, err := readLabelsFor(labelsPath, s)
	if err != nil {
		return err
	}
	o := metrics.Options{Bins: nbins}
	for _, row := range []struct {
		name  string
		probs []float64
	}{{"before", calib.Softmax(s.logits, s.k)}, {"after", p}} {
		r, _, err := evaluate(row.probs, s.k, y, o, false, false)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "  %-6s ACC %6.2f%%  ECE %6.2f%%  CwECE %6.2f%%  NLL %.4f  Brier %.4f\n", row.name, 100*r.ACC, 100*r.ECE, 100*r.CwECE, r.NLL, r.Brier)
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

// writeNPY writes a float64 [rows, cols] array as a version-1.0 .npy file,
// atomically.
func writeNPY(path string, data []float64, rows, cols int) error {
	header := fmt.Sprintf("{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }", rows, cols)
	// Pad with spaces so that magic, version, length and header end on a
	// multiple of 64 bytes, with a final newline.
	pad := 64 - (10+len(header)+1)%64
	header += strings.Repeat(" ", pad%64) + "\n"
	var buf bytes.Buffer
	buf.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&buf, binary.LittleEndian, uint16(len(header)))
	buf.WriteString(header)
	binary.Write(&buf, binary.LittleEndian, data)
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	})
}
