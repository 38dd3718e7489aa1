package main

import (
	"strings"
	"testing"
	"time"
)

// Off a terminal, a study's progress is a line when it starts, a line as
// runs end at most every 10 s (with the runs done, the time elapsed and
// what is left at the rate so far), and a line when it ends.
func TestProgressLinesOffATerminal(t *testing.T) {
	var b strings.Builder
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := newProgress(&b, "ecl sim", "settings", false)
	p.now = func() time.Time { return clock }
	p.start, p.last = clock, clock
	p.begin(8)
	for _, s := range []struct {
		at   time.Duration
		done int
	}{{3 * time.Second, 1}, {9 * time.Second, 2}, {12 * time.Second, 3}, {15 * time.Second, 4}, {22 * time.Second, 5}, {32 * time.Second, 8}} {
		clock = p.start.Add(s.at)
		p.update(s.done, 8)
	}
	want := "ecl sim: started, 0/8 settings\n" +
		"ecl sim: 3/8 settings, 12s elapsed, about 20s left\n" +
		"ecl sim: 5/8 settings, 22s elapsed, about 13s left\n" +
		"ecl sim: done, 8/8 settings in 32s\n"
	if b.String() != want {
		t.Errorf("progress:\n%s\nwant\n%s", b.String(), want)
	}
}
