package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestGridJobs(t *testing.T) {
	g := grid{Command: "sim", Args: []string{"-runs", "1"}, Vary: []axis{{"seed", []string{"1:3"}}, {"shifts", []string{"normal", "uniform"}}}}
	jobs, err := g.jobs("out")
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 6 {
		t.Fatalf("%d jobs, want 6", len(jobs))
	}
	want := []string{"sim", "-runs", "1", "-seed=2", "-shifts=uniform", "-out", filepath.Join("out", "seed=2_shifts=uniform")}
	if j := jobs[3]; j.Index != 3 || j.Name != "seed=2_shifts=uniform" || !slices.Equal(j.Args, want) {
		t.Errorf("job 3: %+v, want args %v", j, want)
	}
	for _, bad := range []grid{
		{Command: "eval"},
		{Command: "sim", Args: []string{"-out", "x"}},
		{Command: "sim", Vary: []axis{{"seed", []string{"3:1"}}}},
	} {
		if _, err := bad.jobs("out"); err == nil {
			t.Errorf("grid %+v accepted", bad)
		}
	}
}

func TestEmitScripts(t *testing.T) {
	cmd := func(i string) string { return "/bin/ecl sweep -out /o -run " + i + " sim -runs 1" }
	r := resources{cpus: 3, memMiB: 2048, gpus: 1, parallel: 2, time: "1:00:00", name: "n", image: "img", pvc: "claim"}
	var b strings.Builder
	if err := emitScript(&b, "slurm", cmd, "/o", 6, r); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"#SBATCH --array=0-5%2", "#SBATCH --cpus-per-task=3", "#SBATCH --mem=2048M", "#SBATCH --gres=gpu:1", `exec /bin/ecl sweep -out /o -run "$SLURM_ARRAY_TASK_ID" sim -runs 1`} {
		if !strings.Contains(b.String(), line+"\n") {
			t.Errorf("slurm script lacks %q:\n%s", line, b.String())
		}
	}
	b.Reset()
	if err := emitScript(&b, "k8s", cmd, "/o", 6, r); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"completionMode: Indexed", "completions: 6", "parallelism: 2", `\"$JOB_COMPLETION_INDEX\" sim -runs 1"]`, "nvidia.com/gpu: 1", `claimName: "claim"`} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("k8s manifest lacks %q:\n%s", line, b.String())
		}
	}
	b.Reset()
	if err := emitScript(&b, "list", cmd, "/o", 2, r); err != nil || b.String() != cmd("0")+"\n"+cmd("1")+"\n" {
		t.Errorf("list: %q, %v", b.String(), err)
	}
	if err := emitScript(&b, "pbs", cmd, "/o", 2, r); err == nil {
		t.Error("unknown kind accepted")
	}
	if got := shellQuote("it's a b"); got != `'it'\''s a b'` {
		t.Errorf("shellQuote: %s", got)
	}
}

// ecl sweep -run I runs job I's study alone, into its folder.
func TestSweepRunsOneJob(t *testing.T) {
	out := t.TempDir()
	err := runSweep([]string{"-out", out, "-vary", "seed=4:5", "-run", "1", "sim", "-runs", "1", "-shifts", "uniform", "-paradigms", "toplabel", "-points", "40", "-hidden", "4", "-base-epochs", "2", "-aux-epochs", "1", "-ecl-epochs", "1", "-quiet"})
	if err != nil {
		t.Fatal(err)
	}
	runs, _ := filepath.Glob(filepath.Join(out, "seed=5", "runs", "*seed-5-*.json"))
	if _, err := os.Stat(filepath.Join(out, "seed=4")); len(runs) != 1 || !os.IsNotExist(err) {
		t.Errorf("run files %v; job 0's folder: %v", runs, err)
	}
	if err := runSweep([]string{"-out", out, "-vary", "seed=4:5", "-run", "2", "sim"}); err == nil {
		t.Error("-run past the last job accepted")
	}
}

// A grid file gives the command, fixed flags and axes; -vary adds axes and
// a command line more flags.
func TestSweepGridFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "grid.json")
	os.WriteFile(path, []byte(`{"command": "digits", "args": ["-epochs", "100"], "vary": [{"flag": "methods", "values": ["ts,cpcs", "all"]}]}`), 0o644)
	out, err := captureStdout(t, func() error {
		return runSweep([]string{"-grid", path, "-out", "o", "-vary", "target=mnist,usps", "digits", "-runs", "1"})
	})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.Contains(lines[1], "methods=ts+cpcs_target=usps\tecl digits -epochs 100 -runs 1 -methods=ts,cpcs -target=usps -out o/methods=ts+cpcs_target=usps") {
		t.Errorf("jobs:\n%s", out)
	}
	os.WriteFile(path, []byte(`{"command": "digits", "seeds": [1]}`), 0o644)
	if err := runSweep([]string{"-grid", path}); err == nil || !strings.Contains(err.Error(), "seeds") {
		t.Errorf("unknown grid field: %v", err)
	}
}
