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
	jobs, err := grid{Command: "sim", Vary: []axis{{"seed", []string{"1:6"}}}}.jobs("/o")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := emitScript(&b, "slurm", cmd, "/o", jobs, r); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"#SBATCH --array=0-5%2", "#SBATCH --cpus-per-task=3", "#SBATCH --mem=2048M", "#SBATCH --gres=gpu:1", `exec /bin/ecl sweep -out /o -run "$SLURM_ARRAY_TASK_ID" sim -runs 1`} {
		if !strings.Contains(b.String(), line+"\n") {
			t.Errorf("slurm script lacks %q:\n%s", line, b.String())
		}
	}
	b.Reset()
	if err := emitScript(&b, "k8s", cmd, "/o", jobs, r); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"completionMode: Indexed", "completions: 6", "parallelism: 2", `\"$JOB_COMPLETION_INDEX\" sim -runs 1"]`, "nvidia.com/gpu: 1", `claimName: "claim"`} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("k8s manifest lacks %q:\n%s", line, b.String())
		}
	}
	b.Reset()
	// Each line of a list says which settings its job has.
	want := cmd("0") + "  # job 0: -seed=1 -out /o/seed=1\n" + cmd("1") + "  # job 1: -seed=2 -out /o/seed=2\n"
	if err := emitScript(&b, "list", cmd, "/o", jobs[:2], r); err != nil || b.String() != want {
		t.Errorf("list: %q, %v; want %q", b.String(), err, want)
	}
	if err := emitScript(&b, "pbs", cmd, "/o", jobs, r); err == nil {
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

// ecl sweep parses every job's command line with the study's flag set and
// settings checks before it writes anything, and names the job and the
// flag of the first that would fail.
func TestSweepRefusesJobsThatWouldFail(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"-vary", "sed=1:2", "-emit", "slurm", "sim"}, []string{"job 0 (sed=1) would fail: -sed: not a flag of ecl sim (did you mean -seed?)", "(its command line: ecl sim -sed=1 -out "}},
		{[]string{"-vary", "seed=1:2", "-emit", "list", "sim", "-runs", "1", "-epochs", "5"},
			[]string{"job 0 (seed=1) would fail: -epochs: not a flag of ecl sim (did you mean -aux-epochs, -base-epochs, -ecl-epochs?)"}},
		{[]string{"-vary", "bins=15,0", "-emit", "k8s", "sim"}, []string{"job 1 (bins=0) would fail: -bins 0: want a positive value"}},
		{[]string{"-vary", "lr=0.001,-1", "-emit", "list", "digits"}, []string{"job 1 (lr=-1) would fail: -lr -1: want a number in (0, 1]"}},
		{[]string{"-vary", "target=usps,svhm", "-emit", "slurm", "digits"}, []string{"job 1 (target=svhm) would fail: -target svhm: want one of mnist, usps, svhn, synth"}},
		{[]string{"-vary", "runs=2,x", "-run", "0", "sim"}, []string{`job 1 (runs=x) would fail: invalid value "x" for flag -runs`}},
		{[]string{"-vary", "seed=1:2", "sim", "-device", "tpu"}, []string{`job 0 (seed=1) would fail: -device "tpu": want cpu or cuda`}},
	} {
		dir := t.TempDir()
		out, script := filepath.Join(dir, "out"), filepath.Join(dir, "x.sbatch")
		args := append([]string{"-out", out, "-o", script, "-bin", "/bin/ecl"}, c.args...)
		_, err := captureStdout(t, func() error { return runSweep(args) })
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%v: error %v, want it to say %q", c.args, err, w)
			}
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("%v: the refused sweep left %v", c.args, left)
		}
	}
}
