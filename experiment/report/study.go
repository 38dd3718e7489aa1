package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"time"

	"github.com/ecl-go/ecl/experiment"
	"github.com/ecl-go/ecl/internal/atomicfile"
)

// StudyTables writes a study's tables under the line "head, took": one
// table per shift, every target metric ×100 (NLL as is), mean ± std over
// seeds, the source accuracy and ECE, and for ECL rows the seeds on which
// the paradigm's own error beat Uncal and CE-finetune.
func StudyTables(w io.Writer, head string, ss []experiment.Summary, took time.Duration) {
	fmt.Fprintf(w, "%s, %s\n", head, took.Round(time.Second))
	shift := ""
	for _, s := range ss {
		if s.Shift.String() != shift {
			shift = s.Shift.String()
			fmt.Fprintf(w, "\nshift %s: target metrics in %%, %s; for ECL rows, the paradigm's own error\n"+
				"(ECE, CwECE or CanECE) against Uncal and against CE-finetune: seeds improved, mean change in points\n", shift, overSeeds(ss))
			fmt.Fprintf(w, "%-15s %-36s", "method", "setup")
			for _, n := range experiment.ScoreNames {
				fmt.Fprintf(w, " %13s", n)
			}
			fmt.Fprintf(w, " %11s %11s %14s %14s\n", "src ACC", "src ECE", "vs Uncal", "vs CE-ft")
		}
		fmt.Fprintf(w, "%-15s %-36s", s.Method, s.Setup)
		for _, n := range experiment.ScoreNames {
			fmt.Fprintf(w, " %13s", pm(s.Target[n], n != "NLL", s.Runs))
		}
		fmt.Fprintf(w, " %11s %11s", pm(s.Source["ACC"], true, s.Runs), pm(s.Source["ECE"], true, s.Runs))
		if s.Wins >= 0 {
			fmt.Fprintf(w, " %6s %+7.2f", fmt.Sprintf("%d/%d", s.Wins, s.Runs), 100*s.Delta)
		}
		if s.WinsCtl >= 0 {
			fmt.Fprintf(w, " %6s %+7.2f", fmt.Sprintf("%d/%d", s.WinsCtl, s.Runs), 100*s.DeltaCtl)
		}
		fmt.Fprintln(w)
	}
}

// pm is a mean ± std over runs seeds, in % when percent; the mean alone
// for one seed.
func pm(s experiment.Stat, percent bool, runs int) string {
	f, k := "%.3f", 1.0
	if percent {
		f, k = "%.2f", 100
	}
	if runs < 2 {
		return fmt.Sprintf(f, k*s.Mean)
	}
	return fmt.Sprintf(f+"±"+f, k*s.Mean, k*s.Std)
}

// WriteResults writes dir/results.json (the command line args, per-seed
// results and summaries) and dir/results.csv (one row per fitted model,
// every target and source metric), each atomically.
func WriteResults(dir string, args []string, rs []experiment.Result, ss []experiment.Summary) error {
	err := atomicfile.Write(filepath.Join(dir, "results.json"), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Args      []string
			Results   []experiment.Result
			Summaries []experiment.Summary
		}{args, rs, ss})
	})
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, "results.csv"), func(w io.Writer) error {
		cw := csv.NewWriter(w)
		head := []string{"shift", "method", "setup", "seed"}
		for _, n := range experiment.ScoreNames {
			head = append(head, "target_"+n)
		}
		for _, n := range experiment.ScoreNames {
			head = append(head, "source_"+n)
		}
		cw.Write(head)
		fitted, _ := experiment.Fitted(rs)
		for _, r := range fitted {
			row := []string{r.Shift.String(), r.Method.String(), r.Setup, strconv.FormatUint(r.Seed, 10)}
			for _, n := range experiment.ScoreNames {
				row = append(row, strconv.FormatFloat(r.Target.Get(n), 'g', -1, 64))
			}
			for _, n := range experiment.ScoreNames {
				row = append(row, strconv.FormatFloat(r.Source.Get(n), 'g', -1, 64))
			}
			cw.Write(row)
		}
		cw.Flush()
		return cw.Error()
	})
}
