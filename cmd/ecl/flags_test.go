package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/experiment"
)

// TestMethodsFlag: every study command's -methods takes the keys its
// help lists (every registered method's, with its row), all and none, and
// rejects any other name, row names and the Uncal and ECL rows among them,
// naming the flag and listing the keys.
func TestMethodsFlag(t *testing.T) {
	var keys []string
	for _, m := range experiment.Registered() {
		keys = append(keys, m.Key)
		if !strings.Contains(methodsHelp(), m.Key+" ("+m.Name+")") {
			t.Errorf("-methods help %q does not list %s (%s)", methodsHelp(), m.Key, m.Name)
		}
	}
	required := map[string][]string{"images": {"-data", t.TempDir(), "-target", "sketch"}}
	for name, study := range studies {
		args := func(list string) []string { return append([]string{"-methods", list, "-out", ""}, required[name]...) }
		for _, list := range append(keys, "all", "none", strings.Join(keys, ",")) {
			if err := study(args(list), true); err != nil {
				t.Errorf("ecl %s -methods %s: %v", name, list, err)
			}
		}
		for _, bad := range []string{"uncal", "ecl", "Uncal", "TS", "ts,ts", "ts,platt"} {
			err := study(args(bad), true)
			if err == nil || !strings.HasPrefix(err.Error(), "-methods ") || !strings.Contains(err.Error(), strings.Join(keys, ", ")) {
				t.Errorf("ecl %s -methods %s: error %v, want one naming -methods and listing %v", name, bad, err, keys)
			}
		}
	}
}

// TestSimSettingsRejected: a setting out of range stops ecl sim before any
// work, with a message naming the flag, rather than being replaced by the
// recipe's default or failing only after training.
func TestSimSettingsRejected(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{"-batch -5", "-batch -5: want at least 1"},
		{"-hidden -1", "-hidden -1: want at least 1"},
		{"-points 1", "-points 1: want at least 2"},
		{"-base-lr NaN", "-base-lr NaN: want a finite number in [0, 1]"},
		{"-aux-lr -0.1", "-aux-lr -0.1: want a finite number in [0, 1]"},
		{"-ecl-lr +Inf", "-ecl-lr +Inf: want a finite number in [0, 1]"},
		{"-ecl-lr 1e6", "-ecl-lr 1e+06: want a finite number in [0, 1]"}, // finite garbage, once printed as a result
		{"-ecl-epochs -2", "-ecl-epochs -2: want at least 1"},
		{"-bins 0", "-bins 0: want a positive value"},
		{"-nprox 0", "-nprox 0: want a positive value"},
		{"-ema 1.5", "-ema 1.5: want a finite number in [0, 1]"},
		{"-lambda-ce -1", "-lambda-ce -1: want a finite number ≥ 0"},
		{"-runs 0", "-runs 0: want at least 1"},
		{"-lambda foo", "-lambda foo: want adaptive or fixed"},
		{"-recipe foo", "-recipe foo: want paper or notebook"},
		{"-aux-fit iw,foo", "-aux-fit foo: want one of plain, iw, crossfit, pseudocal"},
		{"-aux-folds 1", "-aux-folds 1: want at least 2"},
		{"-paradigms foo", `-paradigms: ecl: unknown paradigm "foo"`},
		{"-shifts foo", `-shifts: sim.ParseKind: unknown shift "foo"`},
		{"stray", `unexpected arguments ["stray"]`},
	} {
		dir := t.TempDir()
		err := runSim(append(strings.Fields(c.args), "-out", dir, "-quiet"))
		if c.args == "stray" {
			err = runSim([]string{"-out", dir, "-quiet", "stray"})
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ecl sim %s: error %v, want %q", c.args, err, c.want)
		}
		if entries, _ := os.ReadDir(dir); len(entries) > 0 {
			t.Errorf("ecl sim %s wrote %d entries before failing", c.args, len(entries))
		}
	}
}

// TestDigitsSettingsRejected: ecl digits checks its settings before it
// reads any data, naming the flag (the data folder does not exist here).
func TestDigitsSettingsRejected(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{"-batch -5", "-batch -5: want at least 1"},
		{"-epochs 0", "-epochs 0: want at least 1"},
		{"-aux-fit iw -ecl-whole", "-aux-fit iw: want plain when the whole network is fine-tuned"},
		{"-lr -1", "-lr -1: want a number in (0, 1]"},
		{"-lr 2", "-lr 2: want a number in (0, 1]"},
		{"-target foo", "-target foo: want one of"},
		{"-val 2", "-val 2: want a number in (0, 1)"},
		{"-arch foo", "-arch foo: want one of"},
		{"-max-source -1", "-max-source -1: want"},
		{"-lambda foo", "-lambda foo: want adaptive or fixed"},
	} {
		dir := t.TempDir()
		err := runDigits(append(strings.Fields(c.args), "-data", filepath.Join(dir, "absent"), "-out", filepath.Join(dir, "out"), "-quiet"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ecl digits %s: error %v, want %q", c.args, err, c.want)
		}
	}
}
