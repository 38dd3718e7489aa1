package main

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The argument checks, which come before any download.
func TestRunDataArgs(t *testing.T) {
	dir, full := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "want the subcommand fetch or synth-domains"},
		{[]string{"get"}, "want the subcommand fetch or synth-domains"},
		{[]string{"fetch", "-dir", dir, "-domains", "mnist,cifar"}, `unknown data set "cifar"`},
		{[]string{"fetch", "-dir", dir, "-domains", ","}, "no data set named"},
		{[]string{"fetch", "-dir", dir, "svhn"}, "unexpected arguments"},
		{[]string{"synth-domains"}, "-out is required"},
		{[]string{"synth-domains", "-out", filepath.Join(dir, "s"), "-per-class", "0"}, "-per-class 0: want 1 to 100000"},
		{[]string{"synth-domains", "-out", filepath.Join(dir, "s"), "-size", "8"}, "-size 8: want 16 to 1024"},
		{[]string{"synth-domains", "-out", full}, "-out " + full + ": synth: " + full + " is not empty"},
	} {
		if err := runData(c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ecl data %q: error %v, want %q", c.args, err, c.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a refused command wrote %d entries", len(entries))
	}
	for _, args := range [][]string{{"-h"}, {"fetch", "-h"}, {"synth-domains", "-h"}} {
		if err := runData(args); !errors.Is(err, flag.ErrHelp) {
			t.Errorf("ecl data %q: %v, want flag.ErrHelp", args, err)
		}
	}
}
