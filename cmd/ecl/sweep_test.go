package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
