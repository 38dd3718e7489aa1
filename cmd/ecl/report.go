package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

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
	printUnfit(os.Stderr, rep.unfit)
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
	results, unfit := experiment.Fitted(results)
	return report{metrics: names, summaries: experiment.Summarize(results), results: results, missing: missing, unfit: unfit}, nil
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
