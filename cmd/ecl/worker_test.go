package main

import (
	"fmt"
	"runtime"
	"testing"
)

// Workers split this process's cores between them, one at least each.
func TestSharedCores(t *testing.T) {
	n := runtime.GOMAXPROCS(0)
	for _, c := range []struct{ jobs, want int }{{1, n}, {n, 1}, {n + 5, 1}, {0, n}} {
		if got, want := sharedCores(c.jobs), []string{fmt.Sprintf("GOMAXPROCS=%d", c.want)}; len(got) != 1 || got[0] != want[0] {
			t.Errorf("jobs %d: %v, want %v", c.jobs, got, want)
		}
	}
}
