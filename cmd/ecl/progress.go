package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// bar is a progress bar of width characters, done of total filled.
func bar(done, total, width int) string {
	n := done * width / max(total, 1)
	return "[" + strings.Repeat("#", n) + strings.Repeat(" ", width-n) + "]"
}

// progress reports a study's advance. On a terminal it redraws a bar in
// place; elsewhere (a pipe, a Slurm or Kubernetes log) it writes lines:
// one when the study starts, one as runs end but at most one every
// `every`, and one when it ends, each with the units done of the total,
// the time elapsed and an estimate of the time left.
type progress struct {
	w           io.Writer
	name, unit  string // "ecl sim", "settings"
	terminal    bool
	every       time.Duration
	now         func() time.Time
	start, last time.Time
}

// newProgress is the progress of the study name on w, counted in unit.
func newProgress(w io.Writer, name, unit string, terminal bool) *progress {
	p := &progress{w: w, name: name, unit: unit, terminal: terminal, every: 10 * time.Second, now: time.Now}
	p.start = p.now()
	p.last = p.start
	return p
}

// begin reports the study's start, with its total.
func (p *progress) begin(total int) {
	if !p.terminal {
		fmt.Fprintf(p.w, "%s: started, 0/%d %s\n", p.name, total, p.unit)
	}
}

// update reports done of total units done.
func (p *progress) update(done, total int) {
	now := p.now()
	el := now.Sub(p.start)
	left := time.Duration(float64(el) / float64(max(done, 1)) * float64(total-done))
	if p.terminal {
		fmt.Fprintf(p.w, "\r%s %d/%d %s  %s elapsed, %s left ", bar(done, total, 30), done, total, p.unit, el.Round(time.Second), left.Round(time.Second))
		if done == total {
			fmt.Fprintln(p.w)
		}
		return
	}
	switch {
	case done >= total:
		fmt.Fprintf(p.w, "%s: done, %d/%d %s in %s\n", p.name, done, total, p.unit, el.Round(time.Second))
	case now.Sub(p.last) >= p.every:
		fmt.Fprintf(p.w, "%s: %d/%d %s, %s elapsed, about %s left\n", p.name, done, total, p.unit, el.Round(time.Second), left.Round(time.Second))
	default:
		return
	}
	p.last = now
}
