package main

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ecl-go/ecl/experiment"
)

// built is this command's binary, built once for the tests that run it.
var built struct {
	once      sync.Once
	dir, path string
	err       error
}

// buildECL builds this command (once) into a temporary directory, which
// TestMain removes.
func buildECL(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "ecl-test-"); built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "ecl")
		if out, err := exec.Command("go", "build", "-o", built.path, ".").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// smallSim is a study of 4 runs that takes about a second.
var smallSim = []string{"sim", "-runs", "2", "-points", "60", "-hidden", "8", "-base-epochs", "30", "-aux-epochs", "5", "-ecl-epochs", "5", "-methods", "ts", "-diagram-dpi", "40", "-quiet", "-out", "out"}

// tableOf is a study's printed tables without the wall time.
func tableOf(stdout []byte) string {
	return regexp.MustCompile(`(?m)^(recipe .*), [0-9.hms]+$`).ReplaceAllString(string(stdout), "$1")
}

// studyFiles maps the files of a study's directory to their contents,
// except the run records (their wall times differ), which map to "".
func studyFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		b, err := os.ReadFile(path)
		if filepath.Base(filepath.Dir(path)) == "runs" {
			b = nil
		}
		files[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// sameStudyFiles reports the files of got that differ from want's, are
// missing or are left over.
func sameStudyFiles(t *testing.T, trial string, got, want map[string]string) {
	t.Helper()
	for name, b := range want {
		if got[name] != b {
			t.Errorf("%s: %s differs from the uninterrupted run's", trial, name)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: %s left over (not in the uninterrupted run)", trial, name)
		}
	}
}

// killMoments is the source of killAtRandom's moments, from a seed it
// logs with the uninterrupted run's time took.
func killMoments(t *testing.T, took time.Duration) *rand.Rand {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	t.Logf("uninterrupted run %v; kill moments from seed %d", took, seed)
	return rand.New(rand.NewPCG(seed, 0))
}

// killAtRandom starts c, kills it at a moment drawn from [0, took) and
// reports whether it was killed before it ended.
func killAtRandom(t *testing.T, c *exec.Cmd, rng *rand.Rand, took time.Duration, trial int) bool {
	t.Helper()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	at := time.Duration(rng.Int64N(int64(took)))
	time.Sleep(at)
	if c.Process.Kill() == nil && c.Wait() != nil {
		t.Logf("trial %d: killed after %v", trial, at)
		return true
	}
	return false
}

// ecl sim killed with SIGKILL at random moments and run again finishes with
// the tables, results files and diagrams of an uninterrupted run, and no
// temporary files.
func TestSimKilledAndResumedMatchesUninterrupted(t *testing.T) {
	bin := buildECL(t)
	want, took, wantFiles := uninterrupted(t, bin, smallSim...)
	rng := killMoments(t, took)
	killed := 0
	for trial := range 3 {
		dir := t.TempDir()
		for range 2 {
			c := exec.Command(bin, smallSim...)
			c.Dir = dir
			if killAtRandom(t, c, rng, took, trial) {
				killed++
			}
		}
		c := exec.Command(bin, smallSim...)
		c.Dir = dir
		got, err := c.Output()
		if err != nil {
			t.Fatalf("trial %d: resumed run: %v", trial, err)
		}
		if tableOf(got) != tableOf(want) {
			t.Errorf("trial %d: tables differ:\n%s\nwant\n%s", trial, got, want)
		}
		sameStudyFiles(t, fmt.Sprintf("trial %d", trial), studyFiles(t, filepath.Join(dir, "out")), wantFiles)
	}
	if killed == 0 {
		t.Error("no run was killed before it finished")
	}
	var runs, diagrams int
	for name := range wantFiles {
		switch {
		case strings.HasPrefix(name, "runs/"):
			runs++
		case strings.HasPrefix(name, "diagrams/"):
			diagrams++
		}
	}
	if runs != 4 || diagrams == 0 || wantFiles["results.json"] == "" {
		t.Errorf("study wrote %d run files, %d diagrams, results.json %v; want 4 runs, diagrams and results", runs, diagrams, wantFiles["results.json"] != "")
	}
}

// ecl sim computing its runs in worker processes (-jobs 3) writes the
// tables, results files, diagrams and run results of a run computing them
// one after another in its own process (-jobs 1).
func TestSimJobsMatchSequential(t *testing.T) {
	bin := buildECL(t)
	run := func(jobs string) (string, map[string]string, []*experiment.Record) {
		dir := t.TempDir()
		c := exec.Command(bin, append(smallSim, "-jobs", jobs)...)
		c.Dir = dir
		out, err := c.Output()
		if err != nil {
			t.Fatalf("-jobs %s: %v", jobs, err)
		}
		recs, _, err := experiment.ReadRecords(filepath.Join(dir, "out"))
		if err != nil {
			t.Fatal(err)
		}
		return tableOf(out), studyFiles(t, filepath.Join(dir, "out")), recs
	}
	wantTable, wantFiles, wantRecs := run("1")
	table, files, recs := run("3")
	if table != wantTable {
		t.Errorf("tables differ:\n%s\nwant\n%s", table, wantTable)
	}
	// The command line, in results.json and plan.json, differs by -jobs.
	for name, b := range files {
		files[name] = strings.ReplaceAll(b, `"-jobs",
    "3"`, `"-jobs",
    "1"`)
	}
	for name, b := range wantFiles {
		if files[name] != b {
			t.Errorf("%s differs", name)
		}
	}
	if len(files) != len(wantFiles) {
		t.Errorf("%d files, want %d", len(files), len(wantFiles))
	}
	if len(recs) != 4 || len(recs) != len(wantRecs) {
		t.Fatalf("%d records, want 4", len(recs))
	}
	for i, r := range recs {
		w := wantRecs[i]
		if r.Key != w.Key || !reflect.DeepEqual(r.Results, w.Results) {
			t.Errorf("record %s differs from the sequential run's", r.Label)
		}
	}
}

// uninterrupted runs bin with args to its end in a new folder and returns
// its output, how long it took and the study files it wrote under out.
func uninterrupted(t *testing.T, bin string, args ...string) ([]byte, time.Duration, map[string]string) {
	t.Helper()
	ref := t.TempDir()
	cmd := exec.Command(bin, args...)
	cmd.Dir = ref
	start := time.Now()
	want, err := cmd.Output()
	if err != nil {
		t.Fatalf("uninterrupted run: %v", err)
	}
	return want, time.Since(start), studyFiles(t, filepath.Join(ref, "out"))
}
