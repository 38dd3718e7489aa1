package main

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/ecl/plot"
)

// TestDiagramFlagsRejected: a diagram size or resolution that is not
// positive stops each command that draws diagrams while it parses its
// flags, with a message naming the flag (-diagram-scale 0 used to panic in
// the plotting library after the whole study had run, -diagram-dpi -1 to
// fail there).
func TestDiagramFlagsRejected(t *testing.T) {
	commands := map[string]func([]string) error{"sim": runSim, "digits": runDigits, "eval": runEval}
	for name, run := range commands {
		for _, c := range []struct{ flag, value string }{
			{"-diagram-scale", "0"}, {"-diagram-scale", "NaN"}, {"-diagram-scale", "-1"}, {"-diagram-scale", "+Inf"},
			{"-diagram-dpi", "0"}, {"-diagram-dpi", "-1"}, {"-diagram-dpi", "1.5"},
		} {
			dir := t.TempDir()
			err := run([]string{c.flag, c.value, "-out", dir})
			if err == nil || !strings.Contains(err.Error(), c.flag) {
				t.Errorf("ecl %s %s %s: error %v, want one naming %s", name, c.flag, c.value, err, c.flag)
			}
			if entries, _ := os.ReadDir(dir); len(entries) > 0 {
				t.Errorf("ecl %s %s %s wrote %d entries", name, c.flag, c.value, len(entries))
			}
		}
	}
	fs := flag.NewFlagSet("diagrams", flag.ContinueOnError)
	s := diagramFlags(fs)
	if s.Scale != 1 || s.DPI != plot.DefaultDPI {
		t.Errorf("defaults %+v, want scale 1 and %d dpi", *s, plot.DefaultDPI)
	}
	if err := fs.Parse([]string{"-diagram-scale", "0.5", "-diagram-dpi", "72"}); err != nil || s.Scale != 0.5 || s.DPI != 72 {
		t.Errorf("parsed %+v (error %v), want scale 0.5 and 72 dpi", *s, err)
	}
}
