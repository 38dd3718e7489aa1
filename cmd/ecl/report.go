package main

import (
	"encoding/csv"
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
	"strconv"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/ecl/plot"
	"github.com/ecl-go/ecl/experiment"
	"github.com/ecl-go/ecl/internal/atomicfile"
)

// runReport is "ecl report": merges run records from any number of study
// or sweep directories into tables (text, Markdown, LaTeX, CSV), paired
// per-seed differences between two methods with bootstrap intervals, a
// figure per metric, and lists the planned runs that are missing.
func runReport(args []string) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: ecl report [flags] DIR…\n\nMerges the run records (DIR/**/runs/*.json) of studies and sweeps.\n\n")
		fs.PrintDefaults()
	}
	format := fs.String("format", "text", "table on standard output: text, md, latex, csv or none")
	out := fs.String("out", "", "directory for report.md, report.tex, report.csv, report.txt, the per-metric figures and the reliability diagram grids (empty: none)")
	metricList := fs.String("metrics", "ACC,ECE,CwECE,CanECE,KDE,NLL", "comma list of target metrics: "+strings.Join(experiment.ScoreNames, ", "))
	shifts := fs.String("shifts", "", "comma list of shifts (or →targets) to keep (empty: all)")
	compare := fs.String("compare", "", "A,B: paired per-seed differences B − A between two methods, with bootstrap intervals")
	reps := fs.Int("bootstrap", 1000, "bootstrap resamples of the paired differences")
	seed := fs.Uint64("seed", 1, "seed of the bootstrap")
	figs := fs.String("figures", "png,svg", "formats of the per-metric figures with -out: comma list of png, svg")
	dpi := fs.Int("dpi", 200, "resolution of PNG figures")
	width := fs.Float64("width", 0, "figure width in cm (0: 2 cm per method, at least 14)")
	height := fs.Float64("height", 9, "figure height in cm")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errors.New("no directories")
	}
	names := strings.Split(*metricList, ",")
	for _, n := range names {
		if !slices.Contains(experiment.ScoreNames, n) {
			return fmt.Errorf("-metrics: unknown metric %q (want %s)", n, strings.Join(experiment.ScoreNames, ", "))
		}
	}
	var keep []experiment.ShiftID
	if *shifts != "" {
		var err error
		if keep, err = parseList("shifts", *shifts, experiment.ParseShift); err != nil {
			return err
		}
	}
	rep, err := loadReport(fs.Args(), keep, names)
	if err != nil {
		return err
	}
	if *compare != "" {
		a, b, ok := strings.Cut(*compare, ",")
		if !ok {
			return fmt.Errorf("-compare %q: want two methods, A,B", *compare)
		}
		if rep.diffs, err = pairedDiffs(rep.results, a, b, names, *reps, *seed); err != nil {
			return err
		}
	}
	writers := map[string]func(io.Writer) error{"text": rep.text, "md": rep.markdown, "latex": rep.latex, "csv": rep.csv}
	if *format != "none" {
		w, ok := writers[*format]
		if !ok {
			return fmt.Errorf("-format %q: want text, md, latex, csv or none", *format)
		}
		if err := w(os.Stdout); err != nil {
			return err
		}
	} else if len(rep.diffs) > 0 {
		// -format none leaves out the tables, not what -compare asked for.
		if err := rep.diffText(os.Stdout); err != nil {
			return err
		}
	}
	for _, m := range rep.missing {
		fmt.Fprintln(os.Stderr, "missing:", m)
	}
	if *out == "" {
		return nil
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	for name, kind := range map[string]string{"report.md": "md", "report.tex": "latex", "report.csv": "csv", "report.txt": "text"} {
		if err := atomicfile.Write(filepath.Join(*out, name), writers[kind]); err != nil {
			return err
		}
	}
	if err := writeMetricFigures(*out, strings.Split(*figs, ","), figureSize{*width, *height, *dpi}, rep); err != nil {
		return err
	}
	// The first seed's reliability diagrams, from the records that keep them.
	return writeGrids(*out, rep.results, diagramStyle{Scale: 1, DPI: *dpi})
}

// loadReport reads the records and plans under dirs, keeps the results of
// the given shifts (all when nil) and summarises them.
func loadReport(dirs []string, shifts []experiment.ShiftID, names []string) (report, error) {
	recs, plans, err := experiment.ReadRecords(dirs...)
	if err != nil {
		return report{}, err
	}
	results := mergeResults(recs)
	if shifts != nil {
		results = slices.DeleteFunc(results, func(r experiment.Result) bool { return !slices.Contains(shifts, r.Shift) })
	}
	missing, err := missingRuns(recs, plans, dirs)
	if err != nil {
		return report{}, err
	}
	if len(recs) == 0 && len(missing) == 0 {
		return report{}, fmt.Errorf("no run records in %s", strings.Join(dirs, ", "))
	}
	return report{metrics: names, summaries: experiment.Summarize(results), results: results, missing: missing}, nil
}

// mergeResults concatenates the records' results. Records of different
// settings whose rows would share a shift and setup get the setting's hash
// appended to the setup, so that they stay apart.
func mergeResults(recs []*experiment.Record) []experiment.Result {
	type block struct {
		shift experiment.ShiftID
		setup string
	}
	settings := map[block]map[string]bool{}
	for _, rec := range recs {
		for _, r := range rec.Results {
			k := block{r.Shift, r.Setup}
			if settings[k] == nil {
				settings[k] = map[string]bool{}
			}
			settings[k][rec.Setting] = true
		}
	}
	var out []experiment.Result
	for _, rec := range recs {
		for _, r := range rec.Results {
			if len(settings[block{r.Shift, r.Setup}]) > 1 {
				r.Setup += " [" + rec.Setting[:8] + "]"
			}
			out = append(out, r)
		}
	}
	return out
}

// missingRuns lists the runs that the plans (and the jobs a sweep.json
// names) expect and no record holds.
func missingRuns(recs []*experiment.Record, plans []experiment.Plan, dirs []string) ([]string, error) {
	have := map[string]bool{}
	for _, r := range recs {
		have[r.Key] = true
	}
	var missing []string
	for _, p := range plans {
		for _, r := range p.Runs {
			if !have[r.Key] {
				missing = append(missing, fmt.Sprintf("%s run %s (%s)", p.Study, r.Label, r.File))
			}
		}
	}
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, "sweep.json"))
		if os.IsNotExist(err) {
			continue
		}
		var sw sweepFile
		if err == nil {
			err = json.Unmarshal(b, &sw)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "sweep.json"), err)
		}
		for _, j := range sw.Jobs {
			if _, err := os.Stat(filepath.Join(j.Dir, "plan.json")); err != nil {
				missing = append(missing, fmt.Sprintf("sweep job %d (%s): never started", j.Index, j.Name))
			}
		}
	}
	return missing, nil
}

// diff is the paired per-seed difference B − A of one metric in one shift
// and setup: its mean over the seeds both methods ran and a 95% bootstrap
// interval.
type diff struct {
	shift               experiment.ShiftID
	setup, a, b, metric string
	seeds               int
	mean, lo, hi        float64
}

// pairedDiffs computes the differences B − A for every shift and setup
// where both methods have rows, resampling seeds reps times.
func pairedDiffs(rs []experiment.Result, a, b string, names []string, reps int, seed uint64) ([]diff, error) {
	type key struct {
		shift experiment.ShiftID
		setup string
	}
	var order []key
	pairs := map[key]map[uint64][2]*experiment.Result{}
	ma, mb := experiment.ParseMethodID(a), experiment.ParseMethodID(b)
	var have []string
	for _, r := range rs {
		if name := r.Method.String(); !slices.Contains(have, name) {
			have = append(have, name)
		}
	}
	for _, m := range []experiment.MethodID{ma, mb} {
		if !slices.Contains(have, m.String()) {
			return nil, fmt.Errorf("-compare: no method %s in these runs (want two of %s)", m, strings.Join(have, ", "))
		}
	}
	for i := range rs {
		r := &rs[i]
		if r.Method != ma && r.Method != mb {
			continue
		}
		k := key{r.Shift, r.Setup}
		if pairs[k] == nil {
			pairs[k] = map[uint64][2]*experiment.Result{}
			order = append(order, k)
		}
		p := pairs[k][r.Seed]
		if r.Method == ma {
			p[0] = r
		} else {
			p[1] = r
		}
		pairs[k][r.Seed] = p
	}
	var out []diff
	for _, k := range order {
		var seeds []uint64
		for s, p := range pairs[k] {
			if p[0] != nil && p[1] != nil {
				seeds = append(seeds, s)
			}
		}
		if len(seeds) == 0 {
			continue
		}
		slices.Sort(seeds)
		for _, m := range names {
			d := make([]float64, len(seeds))
			for i, s := range seeds {
				p := pairs[k][s]
				d[i] = p[1].Target.Get(m) - p[0].Target.Get(m)
			}
			mean := func(idx []int) float64 {
				var sum float64
				for _, i := range idx {
					sum += d[i]
				}
				return sum / float64(len(idx))
			}
			all := make([]int, len(d))
			for i := range all {
				all[i] = i
			}
			lo, hi := metrics.Bootstrap(len(d), mean, reps, 0.95, rand.New(rand.NewPCG(seed, 0xd1ff)))
			out = append(out, diff{shift: k.shift, setup: k.setup, a: a, b: b, metric: m, seeds: len(d), mean: mean(all), lo: lo, hi: hi})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-compare: no seed of the same shift and setup has both %s and %s", a, b)
	}
	return out, nil
}

// report is what ecl report writes, in every format.
type report struct {
	metrics   []string
	summaries []experiment.Summary
	results   []experiment.Result
	diffs     []diff
	missing   []string
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
func (r report) blocks() [][]experiment.Summary {
	var out [][]experiment.Summary
	for i, s := range r.summaries {
		if i == 0 || s.Shift != r.summaries[i-1].Shift || s.Setup != r.summaries[i-1].Setup {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], s)
	}
	return out
}

// title names a block: its shift, and its setup too when the shift has
// several.
func (r report) title(block []experiment.Summary) string {
	for _, s := range r.summaries {
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

// text writes one table per shift: target metrics in % (NLL as is), mean ±
// std over seeds, and the seeds-improved columns of the ECL rows (the
// layout of README.md's sim table).
func (r report) text(w io.Writer) error {
	var b strings.Builder
	for i, block := range r.blocks() {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "shift %s: target metrics in %%, %s\n", r.title(block), overSeeds(block))
		line := pad("method", textWidths["method"])
		for _, m := range r.metrics {
			line += pad(m, textWidths[m])
		}
		b.WriteString(line + pad("vs Uncal", textWidths["vs Uncal"]) + "vs CE-ft\n")
		for _, s := range block {
			line := pad(s.Method.String(), textWidths["method"])
			for _, m := range r.metrics {
				line += pad(cell(s.Target[m], m, "±", s.Runs), textWidths[m])
			}
			line += pad(wins(s.Wins, s.Runs, s.Delta), textWidths["vs Uncal"]) + wins(s.WinsCtl, s.Runs, s.DeltaCtl)
			b.WriteString(strings.TrimRight(line, " ") + "\n")
		}
	}
	if len(r.diffs) > 0 {
		b.WriteString("\n")
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	return r.diffText(w)
}

// diffText writes the paired differences of -compare, one a line.
func (r report) diffText(w io.Writer) error {
	var b strings.Builder
	for _, d := range r.diffs {
		fmt.Fprintf(&b, "%s − %s, %s, %s: %+.3f [%+.3f, %+.3f] (%d seeds, 95%% bootstrap)\n", d.b, d.a, d.shift, d.metric, scale(d.metric)*d.mean, scale(d.metric)*d.lo, scale(d.metric)*d.hi, d.seeds)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// markdown writes the tables as Markdown, the paired differences and the
// missing runs as lists.
func (r report) markdown(w io.Writer) error {
	var b strings.Builder
	for i, block := range r.blocks() {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "**%s** (%s; target, %%, %s)\n\n| method |", block[0].Shift, block[0].Setup, overSeeds(block))
		for _, m := range r.metrics {
			b.WriteString(" " + m + " |")
		}
		b.WriteString(" vs Uncal | vs CE-ft |\n|---|" + strings.Repeat("---|", len(r.metrics)+2) + "\n")
		for _, s := range block {
			fmt.Fprintf(&b, "| %s |", s.Method)
			for _, m := range r.metrics {
				b.WriteString(" " + cell(s.Target[m], m, " ± ", s.Runs) + " |")
			}
			fmt.Fprintf(&b, " %s | %s |\n", wins(s.Wins, s.Runs, s.Delta), wins(s.WinsCtl, s.Runs, s.DeltaCtl))
		}
	}
	if len(r.diffs) > 0 {
		fmt.Fprintf(&b, "\nPaired per-seed differences (95%% bootstrap intervals):\n\n")
		for _, d := range r.diffs {
			fmt.Fprintf(&b, "- %s − %s, %s, %s: %+.3f [%+.3f, %+.3f] over %d seeds\n", d.b, d.a, d.shift, d.metric, scale(d.metric)*d.mean, scale(d.metric)*d.lo, scale(d.metric)*d.hi, d.seeds)
		}
	}
	if len(r.missing) > 0 {
		fmt.Fprintf(&b, "\nMissing runs:\n\n")
		for _, m := range r.missing {
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

// latex writes one booktabs table per shift, mean $\pm$ std, the best mean
// of each column in bold.
func (r report) latex(w io.Writer) error {
	var b strings.Builder
	b.WriteString("% ecl report; needs \\usepackage{booktabs}\n")
	for _, block := range r.blocks() {
		// The best mean as printed, per column.
		printed := func(s experiment.Summary, m string) float64 { return math.Round(scale(m) * s.Target[m].Mean * 1000) }
		best := map[string]float64{}
		for _, m := range r.metrics {
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
		fmt.Fprintf(&b, "\\begin{tabular}{l%s}\n\\toprule\nMethod", strings.Repeat("c", len(r.metrics)+2))
		for _, m := range r.metrics {
			b.WriteString(" & " + m)
		}
		b.WriteString(" & vs Uncal & vs CE-ft \\\\\n\\midrule\n")
		for _, s := range block {
			b.WriteString(latexEscape(s.Method.String()))
			for _, m := range r.metrics {
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

// csv writes one row per shift, setup and method: the runs, every
// metric's mean and std (fractions, NLL as is) and the seeds-improved
// columns.
func (r report) csv(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := []string{"shift", "setup", "method", "runs"}
	for _, m := range experiment.ScoreNames {
		head = append(head, m+"_mean", m+"_std")
	}
	cw.Write(append(head, "wins_uncal", "delta_uncal", "wins_ce_finetune", "delta_ce_finetune"))
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, s := range r.summaries {
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

// figureSize is a figure's width and height in cm (width 0: chosen by the
// figure) and its PNG resolution.
type figureSize struct {
	w, h float64
	dpi  int
}

// writeMetricFigures draws, for each shift and setup and each metric, every
// method's per-seed values and their mean ± std into dir, in each format.
func writeMetricFigures(dir string, formats []string, size figureSize, r report) error {
	for _, block := range r.blocks() {
		methods, names := make([]experiment.MethodID, len(block)), make([]string, len(block))
		for i, s := range block {
			methods[i], names[i] = s.Method, s.Method.String()
		}
		for _, m := range r.metrics {
			values := make([][]float64, len(block))
			for _, res := range r.results {
				if i := slices.Index(methods, res.Method); i >= 0 && res.Shift == block[0].Shift && res.Setup == block[0].Setup {
					values[i] = append(values[i], scale(m)*res.Target.Get(m))
				}
			}
			unit := " (%)"
			if m == "NLL" {
				unit = ""
			}
			p, err := plot.SeedSpread(fmt.Sprintf("%s: target %s, %d seeds", r.title(block), m, block[0].Runs), m+unit, names, values)
			if err != nil {
				return err
			}
			name := slug(block[0].Setup) + "-" + m
			w := size.w
			if w == 0 {
				w = max(14, 2*float64(len(methods)))
			}
			for _, f := range formats {
				if err := plot.SaveFigureDPI(plot.Figure{{p}}, filepath.Join(dir, name+"."+f), vg.Length(w)*vg.Centimeter, vg.Length(size.h)*vg.Centimeter, size.dpi); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
