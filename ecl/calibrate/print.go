package calibrate

import (
	"fmt"
	"io"

	"github.com/ecl-go/ecl/ecl/calib"
	"github.com/ecl-go/ecl/ecl/predict"
)

// printInputs states what was read and how it was interpreted.
func printInputs(w io.Writer, r *Report) {
	for _, s := range []struct {
		name string
		s    predict.Scores
	}{{"source", r.Source}, {"target", r.Target}} {
		fmt.Fprintf(w, "%s: %s, %d×%d, read as %s (%s)\n", s.name, s.s.Path, s.s.Rows, s.s.Cols, s.s.Kind, s.s.How)
	}
	fmt.Fprintf(w, "%d classes\n", r.Classes)
}

// printShift prints the shift diagnostics with a reading of them.
func printShift(w io.Writer, r *Report) {
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
func printMethods(w io.Writer, r *Report, labelled bool) {
	fmt.Fprintf(w, "\ntop-label ECE in %% (%d bins): raw → bias-corrected [95%% basic bootstrap interval, %d resamples, centred on\nthe bias-corrected value, which the raw one may lie above]; label-free estimates from the importance-weighted\nsource (%d-fold cross-fitted) and from the pseudo-target set; ACC, CwECE and Brier in %%, NLL as is\n", r.Bins, r.Bootstrap, r.EstimateFolds)
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
			line += fmt.Sprintf(" %-29s %7.2f %7.2f %7.4f %7.2f", iv(*m.TargetECE), 100*m.Target.ACC, 100*m.Target.CwECE, m.Target.NLL, 100*m.Target.Brier)
		}
		fmt.Fprintln(w, line)
	}
}

// printODIR prints the penalties of the methods that have them, and how
// they were chosen.
func printODIR(w io.Writer, r *Report) {
	head := false
	for _, m := range r.Methods {
		if m.ODIR == nil {
			continue
		}
		if !head {
			fmt.Fprintln(w, "ODIR penalties (λ off-diagonal, μ intercept):")
			head = true
		}
		line := fmt.Sprintf("  %-10s λ %g, μ %g", m.Method, m.ODIR.Lambda, m.ODIR.Mu)
		if m.Method == "vs" {
			line = fmt.Sprintf("  %-10s μ %g", m.Method, m.ODIR.Mu)
		}
		if cv := m.ODIRCV; cv != nil {
			best := cv.Path[0].NLL
			for _, p := range cv.Path {
				best = min(best, p.NLL)
			}
			line += fmt.Sprintf(": %d-fold stratified cross-validation on the source, held-out NLL %.4f, best of %d points, %d fits", cv.Folds, best, len(cv.Path), cv.Fits)
		} else {
			line += " (given)"
		}
		fmt.Fprintln(w, line)
	}
}
