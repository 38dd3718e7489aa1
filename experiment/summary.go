package experiment

import (
	"fmt"
	"io"

	"github.com/ecl-go/ecl/ecl"
	"gonum.org/v1/gonum/stat"
)

// Stat is a mean and sample standard deviation over seeds.
type Stat struct{ Mean, Std float64 }

// statOf is the mean and sample standard deviation of xs (0 for one value).
func statOf(xs []float64) Stat {
	if len(xs) < 2 {
		return Stat{Mean: stat.Mean(xs, nil)}
	}
	m, sd := stat.MeanStdDev(xs, nil)
	return Stat{m, sd}
}

// Summary aggregates one method of one setup on one shift over seeds.
type Summary struct {
	Shift          ShiftID
	Method         MethodID
	Setup          string
	Runs           int
	Target, Source map[string]Stat
	// Wins counts, for an ECL row, the seeds on which its own paradigm's
	// target error (ECE for top-label, CwECE for class-wise, canonical ECE
	// for canonical) is below Uncal's on the same seed and setup; -1 for
	// other rows.
	Wins int
	// Delta is the mean change of that error against Uncal (negative is
	// better).
	Delta float64
	// WinsCtl and DeltaCtl compare with CE-finetune instead (the same
	// fine-tuning without ECL), when that row exists; WinsCtl is -1 otherwise.
	WinsCtl  int
	DeltaCtl float64
}

// ScoreNames lists the Scores fields in table order.
var ScoreNames = []string{"ACC", "ECE", "CwECE", "CanECE", "KDE", "NLL", "Brier"}

// Get returns the score called name.
func (s Scores) Get(name string) float64 {
	return map[string]float64{"ACC": s.ACC, "ECE": s.ECE, "CwECE": s.CwECE, "CanECE": s.CanECE, "KDE": s.KDE, "NLL": s.NLL, "Brier": s.Brier}[name]
}

// ownMetric is the error an ECL row's paradigm aims at.
func ownMetric(method MethodID) (string, bool) {
	if method.Kind != ECLRow {
		return "", false
	}
	return map[ecl.Paradigm]string{ecl.TopLabel: "ECE", ecl.ClassWise: "CwECE", ecl.Canonical: "CanECE"}[method.Paradigm], true
}

// Summarize groups results by shift, setup and method, in order of first
// appearance.
func Summarize(rs []Result) []Summary {
	type key struct {
		shift  ShiftID
		setup  string
		method MethodID
	}
	rs, _ = Fitted(rs)
	var order []key
	groups := map[key][]Result{}
	uncal := map[seedKey]Result{}
	ctl := map[seedKey]Result{}
	for _, r := range rs {
		k := key{r.Shift, r.Setup, r.Method}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
		switch r.Method.Kind {
		case UncalRow:
			uncal[keyOf(r)] = r
		case ControlRow:
			ctl[keyOf(r)] = r
		}
	}
	var out []Summary
	for _, k := range order {
		g := groups[k]
		s := Summary{Shift: k.shift, Method: k.method, Setup: k.setup, Runs: len(g), Target: map[string]Stat{}, Source: map[string]Stat{}}
		for _, name := range ScoreNames {
			var tv, sv []float64
			for _, r := range g {
				tv = append(tv, r.Target.Get(name))
				sv = append(sv, r.Source.Get(name))
			}
			s.Target[name], s.Source[name] = statOf(tv), statOf(sv)
		}
		s.Wins, s.WinsCtl = -1, -1
		if m, ok := ownMetric(k.method); ok {
			s.Wins, s.Delta = compare(g, uncal, m)
			if _, ok := ctl[keyOf(g[0])]; ok {
				s.WinsCtl, s.DeltaCtl = compare(g, ctl, m)
			}
		}
		out = append(out, s)
	}
	return out
}

// compare counts the results of g whose target error m is below that of the
// baseline on the same shift, setup and seed, and the mean change.
func compare(g []Result, base map[seedKey]Result, m string) (wins int, delta float64) {
	for _, r := range g {
		b, ok := base[keyOf(r)]
		if !ok {
			continue
		}
		d := r.Target.Get(m) - b.Target.Get(m)
		delta += d / float64(len(g))
		if d < 0 {
			wins++
		}
	}
	return wins, delta
}

// seedKey identifies the models trained on the same data and base model.
type seedKey struct {
	shift ShiftID
	setup string
	seed  uint64
}

func keyOf(r Result) seedKey { return seedKey{r.Shift, r.Setup, r.Seed} }

// WriteDiagnostics prints, for each ECL row (shift, setup, method) of rs,
// the means over seeds of its Diagnostics: the auxiliary head's estimate
// against the truth on each domain (mean P(correct) / accuracy for
// top-label, the mean absolute class-frequency error otherwise) and the
// ECL stage's first and last epochs (ECL term, λ, |∇ECL|/|∇CE|).
func WriteDiagnostics(w io.Writer, rs []Result) {
	type key struct {
		shift  ShiftID
		setup  string
		method MethodID
	}
	var order []key
	groups := map[key][]*Diagnostics{}
	for _, r := range rs {
		if r.Diag == nil {
			continue
		}
		k := key{r.Shift, r.Setup, r.Method}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r.Diag)
	}
	if len(order) == 0 {
		return
	}
	fmt.Fprintln(w, "\nECL diagnostics, means over seeds: auxiliary head's estimate / truth per domain (top-label: mean P(correct) / accuracy;")
	fmt.Fprintln(w, "class paradigms: mean |mean P(Y=k) − frequency of k|), and the ECL stage's first → last epoch")
	for _, k := range order {
		g := groups[k]
		fmt.Fprintf(w, "%s %-22s", k.shift, k.method)
		for i, c := range g[0].Aux {
			var est, act, gap []float64
			for _, d := range g {
				e, a := d.Aux[i].Estimate, d.Aux[i].Actual
				est, act = append(est, e[0]), append(act, a[0])
				gap = append(gap, meanAbsDiff(e, a))
			}
			if len(c.Estimate) == 1 {
				fmt.Fprintf(w, "  %s %.3f / %.3f", c.Domain, stat.Mean(est, nil), stat.Mean(act, nil))
			} else {
				fmt.Fprintf(w, "  %s %.3f", c.Domain, stat.Mean(gap, nil))
			}
		}
		epoch := func(i int) (term, lambda, ratio float64) {
			var ts, ls, rs []float64
			for _, d := range g {
				if len(d.Epochs) == 0 {
					continue
				}
				e := d.Epochs[min(i, len(d.Epochs)-1)]
				ts, ls, rs = append(ts, e.Term), append(ls, e.Lambda), append(rs, e.GradRatio)
			}
			return stat.Mean(ts, nil), stat.Mean(ls, nil), stat.Mean(rs, nil)
		}
		t0, l0, r0 := epoch(0)
		t1, l1, r1 := epoch(len(g[0].Epochs) - 1)
		fmt.Fprintf(w, "  ECL %.4g → %.4g, λ %.3g → %.3g, |∇ECL|/|∇CE| %.3g → %.3g%s\n", t0, t1, l0, l1, r0, r1, fitSummary(g))
	}
}

// fitSummary is what the diagnostics g of one row say of its head's fit,
// means over seeds: the importance weights' effective sample size (share
// of the samples) and the domain classifier's AUC, the PseudoCal
// temperature, or the ATC temperature or logit shift with ATC's accuracy
// estimate; empty for the other fits.
func fitSummary(g []*Diagnostics) string {
	var ess, auc, temp, atc, shift []float64
	for _, d := range g {
		if d.Shift != nil {
			ess, auc = append(ess, d.Shift.ESSFraction), append(auc, d.Shift.AUC)
		}
		if d.Temperature > 0 {
			temp = append(temp, d.Temperature)
		}
		if d.ATC > 0 {
			atc, shift = append(atc, d.ATC), append(shift, d.LogitShift)
		}
	}
	switch {
	case len(ess) > 0:
		return fmt.Sprintf(", ESS %.1f%% of the head's samples, domain AUC %.3f", 100*stat.Mean(ess, nil), stat.Mean(auc, nil))
	case len(atc) > 0 && len(temp) > 0:
		return fmt.Sprintf(", target temperature %.3g for ATC's accuracy %.3f", stat.Mean(temp, nil), stat.Mean(atc, nil))
	case len(atc) > 0:
		return fmt.Sprintf(", target logit shift %.3g for ATC's accuracy %.3f", stat.Mean(shift, nil), stat.Mean(atc, nil))
	case len(temp) > 0:
		return fmt.Sprintf(", target temperature %.3g", stat.Mean(temp, nil))
	}
	return ""
}
