package main

import (
	"fmt"
	"os"
	"regexp"

	"github.com/ecl-go/ecl/bench"
)

// largeRow is the name of the row of net's inference or training step.
func largeRow(net string, train bool) string {
	if train {
		return net + "-train-step/float32"
	}
	return net + "-infer/float32"
}

// profileRow writes to path the CPU profile of calls steady-state calls of
// the one large-network row re selects.
func profileRow(re *regexp.Regexp, on bench.On, path string, calls int) error {
	if calls < 1 {
		return fmt.Errorf("-profile-calls %d: want at least 1", calls)
	}
	var rows []string
	var net string
	var train bool
	for _, n := range bench.LargeOrder {
		for _, t := range []bool{false, true} {
			if re.MatchString(largeRow(n, t)) {
				rows, net, train = append(rows, largeRow(n, t)), n, t
			}
		}
	}
	if len(rows) != 1 {
		return fmt.Errorf("-cpuprofile: -run %q selects %d large-network rows %v, want one", re, len(rows), rows)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := bench.ProfileLarge(net, train, on, calls, f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Printf("%s: %d calls profiled into %s\n", rows[0], calls, path)
	return nil
}
