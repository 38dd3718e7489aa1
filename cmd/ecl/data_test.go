package main

import (
	"errors"
	"flag"
	"os"
	"strings"
	"testing"
)

// The argument checks, which come before any download.
func TestRunDataArgs(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "want the subcommand fetch"},
		{[]string{"get"}, "want the subcommand fetch"},
		{[]string{"fetch", "-dir", dir, "-domains", "mnist,cifar"}, `unknown data set "cifar"`},
		{[]string{"fetch", "-dir", dir, "-domains", ","}, "no data set named"},
		{[]string{"fetch", "-dir", dir, "svhn"}, "unexpected arguments"},
	} {
		if err := runData(c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ecl data %q: error %v, want %q", c.args, err, c.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a refused command wrote %d entries", len(entries))
	}
	for _, args := range [][]string{{"-h"}, {"fetch", "-h"}} {
		if err := runData(args); !errors.Is(err, flag.ErrHelp) {
			t.Errorf("ecl data %q: %v, want flag.ErrHelp", args, err)
		}
	}
}
