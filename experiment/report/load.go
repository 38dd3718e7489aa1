package report

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ecl-go/ecl/experiment"
	"github.com/ecl-go/ecl/experiment/sweep"
)

// Report is the merged results of some studies and sweeps, in every
// format.
type Report struct {
	// Metrics are the target metrics of the tables, of
	// experiment.ScoreNames (the CSV has them all).
	Metrics   []string
	Summaries []experiment.Summary
	Results   []experiment.Result
	// Diffs are the paired differences Compare computed.
	Diffs []Diff
	// Missing names the planned runs that no record holds.
	Missing []string
	// Unfit are the rows whose method could not be fitted, and why.
	Unfit []string
}

// Load reads the records and plans under dirs (DIR/**/runs/*.json and
// plan.json, and a sweep's sweep.json), keeps the results of the given
// shifts (all when nil), and summarises them in the tables of the given
// metrics.
func Load(dirs []string, shifts []experiment.ShiftID, metrics []string) (*Report, error) {
	recs, plans, err := experiment.ReadRecords(dirs...)
	if err != nil {
		return nil, err
	}
	results := mergeResults(recs)
	if shifts != nil {
		results = slices.DeleteFunc(results, func(r experiment.Result) bool { return !slices.Contains(shifts, r.Shift) })
	}
	missing, err := missingRuns(recs, plans, dirs)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 && len(missing) == 0 {
		return nil, fmt.Errorf("no run records in %s", strings.Join(dirs, ", "))
	}
	results, unfit := experiment.Fitted(results)
	return &Report{Metrics: metrics, Summaries: experiment.Summarize(results), Results: results, Missing: missing, Unfit: unfit}, nil
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
		sw, ok, err := sweep.ReadFile(dir)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		for _, j := range sw.Jobs {
			if _, err := os.Stat(filepath.Join(j.Dir, "plan.json")); err != nil {
				missing = append(missing, fmt.Sprintf("sweep job %d (%s): never started", j.Index, j.Name))
			}
		}
	}
	return missing, nil
}
