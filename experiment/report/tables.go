package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ecl-go/ecl/experiment"
)

// Formats are the formats of Write.
var Formats = []string{"text", "md", "latex", "csv"}

// Write writes the tables in format, one of Formats: text (Text), md
// (Markdown), latex (LaTeX) or csv (CSV).
func (r Report) Write(w io.Writer, format string) error {
	switch format {
	case "text":
		return r.Text(w)
	case "md":
		return r.Markdown(w)
	case "latex":
		return r.LaTeX(w)
	case "csv":
		return r.CSV(w)
	}
	return fmt.Errorf("report: format %q: want text, md, latex or csv", format)
}

// scale is a metric's factor in the tables: points for the rates, NLL as is.
func scale(metric string) float64 {
	if metric == "NLL" {
		return 1
	}
	return 100
}

// cell is a mean ± std over runs seeds in the tables' precision, with sep
// between; the mean alone for one seed (which has no spread).
func cell(s experiment.Stat, metric, sep string, runs int) string {
	f := "%.2f"
	if metric == "NLL" {
		f = "%.3f"
	}
	if runs < 2 {
		return fmt.Sprintf(f, scale(metric)*s.Mean)
	}
	return fmt.Sprintf(f+"%s"+f, scale(metric)*s.Mean, sep, scale(metric)*s.Std)
}

// overSeeds says what a block's cells are: mean ± std over seeds, or the
// values of one seed.
func overSeeds(block []experiment.Summary) string {
	for _, s := range block {
		if s.Runs > 1 {
			return "mean ± std over seeds"
		}
	}
	return "one seed"
}

// wins is a seeds-improved cell ("7/10 -1.23"), empty where it does not
// apply.
func wins(n, runs int, delta float64) string {
	if n < 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d %+.2f", n, runs, 100*delta)
}

// blocks splits the summaries by shift and setup, in order.
func (r Report) blocks() [][]experiment.Summary {
	var out [][]experiment.Summary
	for i, s := range r.Summaries {
		if i == 0 || s.Shift != r.Summaries[i-1].Shift || s.Setup != r.Summaries[i-1].Setup {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], s)
	}
	return out
}

// title names a block: its shift, and its setup too when the shift has
// several.
func (r Report) title(block []experiment.Summary) string {
	for _, s := range r.Summaries {
		if s.Shift == block[0].Shift && s.Setup != block[0].Setup {
			return block[0].Shift.String() + " (" + block[0].Setup + ")"
		}
	}
	return block[0].Shift.String()
}

// textWidths are the column widths of the text table (the README's).
var textWidths = map[string]int{"method": 16, "ACC": 12, "ECE": 11, "CwECE": 11, "CanECE": 11, "KDE": 12, "NLL": 13, "Brier": 12, "vs Uncal": 14}

// pad left-aligns s in width runes, with at least one space after it.
func pad(s string, width int) string {
	n := len([]rune(s))
	return s + strings.Repeat(" ", max(width-n, 1))
}

// Text writes one table per shift: target metrics in % (NLL as is), mean ±
// std over seeds, and the seeds-improved columns of the ECL rows (the
// layout of README.md's sim table).
func (r Report) Text(w io.Writer) error {
	var b strings.Builder
	for i, block := range r.blocks() {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "shift %s: target metrics in %%, %s\n", r.title(block), overSeeds(block))
		line := pad("method", textWidths["method"])
		for _, m := range r.Metrics {
			line += pad(m, textWidths[m])
		}
		b.WriteString(line + pad("vs Uncal", textWidths["vs Uncal"]) + "vs CE-ft\n")
		for _, s := range block {
			line := pad(s.Method.String(), textWidths["method"])
			for _, m := range r.Metrics {
				line += pad(cell(s.Target[m], m, "±", s.Runs), textWidths[m])
			}
			line += pad(wins(s.Wins, s.Runs, s.Delta), textWidths["vs Uncal"]) + wins(s.WinsCtl, s.Runs, s.DeltaCtl)
			b.WriteString(strings.TrimRight(line, " ") + "\n")
		}
	}
	if len(r.Diffs) > 0 {
		b.WriteString("\n")
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	return r.DiffText(w)
}

// Markdown writes the tables as Markdown, the paired differences and the
// missing runs as lists.
func (r Report) Markdown(w io.Writer) error {
	var b strings.Builder
	for i, block := range r.blocks() {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "**%s** (%s; target, %%, %s)\n\n| method |", block[0].Shift, block[0].Setup, overSeeds(block))
		for _, m := range r.Metrics {
			b.WriteString(" " + m + " |")
		}
		b.WriteString(" vs Uncal | vs CE-ft |\n|---|" + strings.Repeat("---|", len(r.Metrics)+2) + "\n")
		for _, s := range block {
			fmt.Fprintf(&b, "| %s |", s.Method)
			for _, m := range r.Metrics {
				b.WriteString(" " + cell(s.Target[m], m, " ± ", s.Runs) + " |")
			}
			fmt.Fprintf(&b, " %s | %s |\n", wins(s.Wins, s.Runs, s.Delta), wins(s.WinsCtl, s.Runs, s.DeltaCtl))
		}
	}
	if len(r.Diffs) > 0 {
		fmt.Fprintf(&b, "\nPaired per-seed differences (95%% bootstrap intervals):\n\n")
		for _, d := range r.Diffs {
			fmt.Fprintf(&b, "- %s − %s, %s, %s: %+.3f [%+.3f, %+.3f] over %d seeds\n", d.B, d.A, d.Shift, d.Metric, scale(d.Metric)*d.Mean, scale(d.Metric)*d.Lo, scale(d.Metric)*d.Hi, d.Seeds)
		}
	}
	if len(r.Unfit) > 0 {
		fmt.Fprintf(&b, "\nRows not fitted (left out of the tables):\n\n")
		for _, u := range r.Unfit {
			fmt.Fprintf(&b, "- %s\n", u)
		}
	}
	if len(r.Missing) > 0 {
		fmt.Fprintf(&b, "\nMissing runs:\n\n")
		for _, m := range r.Missing {
			fmt.Fprintf(&b, "- %s\n", m)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// latexEscape escapes LaTeX's special characters in s.
func latexEscape(s string) string {
	return strings.NewReplacer(`\`, `\textbackslash{}`, "&", `\&`, "%", `\%`, "$", `\$`, "#", `\#`, "_", `\_`, "{", `\{`, "}", `\}`, "→", `$\to$`, "~", `\textasciitilde{}`, "^", `\textasciicircum{}`).Replace(s)
}

// higherIsBetter reports whether larger values of the metric are better.
func higherIsBetter(metric string) bool { return metric == "ACC" }

// LaTeX writes one booktabs table per shift, mean $\pm$ std, the best mean
// of each column in bold.
func (r Report) LaTeX(w io.Writer) error {
	var b strings.Builder
	b.WriteString("% ecl report; needs \\usepackage{booktabs}\n")
	for _, block := range r.blocks() {
		// The best mean as printed, per column.
		printed := func(s experiment.Summary, m string) float64 { return math.Round(scale(m) * s.Target[m].Mean * 1000) }
		best := map[string]float64{}
		for _, m := range r.Metrics {
			var vals []float64
			for _, s := range block {
				vals = append(vals, printed(s, m))
			}
			best[m] = slices.Min(vals)
			if higherIsBetter(m) {
				best[m] = slices.Max(vals)
			}
		}
		fmt.Fprintf(&b, "\\begin{table}\n\\centering\n\\caption{%s: target metrics (%%, NLL as is), mean $\\pm$ std over seeds}\n", latexEscape(block[0].Shift.String()+", "+block[0].Setup))
		fmt.Fprintf(&b, "\\begin{tabular}{l%s}\n\\toprule\nMethod", strings.Repeat("c", len(r.Metrics)+2))
		for _, m := range r.Metrics {
			b.WriteString(" & " + m)
		}
		b.WriteString(" & vs Uncal & vs CE-ft \\\\\n\\midrule\n")
		for _, s := range block {
			b.WriteString(latexEscape(s.Method.String()))
			for _, m := range r.Metrics {
				c := cell(s.Target[m], m, " $\\pm$ ", s.Runs)
				if printed(s, m) == best[m] {
					c = "\\textbf{" + c + "}"
				}
				b.WriteString(" & " + c)
			}
			fmt.Fprintf(&b, " & %s & %s \\\\\n", wins(s.Wins, s.Runs, s.Delta), wins(s.WinsCtl, s.Runs, s.DeltaCtl))
		}
		b.WriteString("\\bottomrule\n\\end{tabular}\n\\end{table}\n\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// CSV writes one row per shift, setup and method: the runs, every
// metric's mean and std (fractions, NLL as is) and the seeds-improved
// columns.
func (r Report) CSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := []string{"shift", "setup", "method", "runs"}
	for _, m := range experiment.ScoreNames {
		head = append(head, m+"_mean", m+"_std")
	}
	cw.Write(append(head, "wins_uncal", "delta_uncal", "wins_ce_finetune", "delta_ce_finetune"))
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, s := range r.Summaries {
		row := []string{s.Shift.String(), s.Setup, s.Method.String(), strconv.Itoa(s.Runs)}
		for _, m := range experiment.ScoreNames {
			row = append(row, g(s.Target[m].Mean), g(s.Target[m].Std))
		}
		opt := func(n int, d float64) []string {
			if n < 0 {
				return []string{"", ""}
			}
			return []string{strconv.Itoa(n), g(d)}
		}
		row = append(append(row, opt(s.Wins, s.Delta)...), opt(s.WinsCtl, s.DeltaCtl)...)
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}
