package experiment

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/ecl"
)

// ParseShiftTarget reads back what ShiftTarget.String writes and refuses
// names that are not a transform at one of its levels.
func TestParseShiftTarget(t *testing.T) {
	for _, want := range []ShiftTarget{{"rotate", 165}, {"shot-noise", 5}} {
		got, err := ParseShiftTarget("→" + want.String())
		if err != nil || got != want {
			t.Errorf("%s: got %v, %v", want, got, err)
		}
	}
	for _, bad := range []string{"rotate", "rotate:10", "fog:1", "shear:x"} {
		if _, err := ParseShiftTarget(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// The map counts the seeds on which an ECL row's own error is below the
// reference's on the same seed and averages the change, per target, and
// the summary prints a line per target in transform order.
func TestShiftMap(t *testing.T) {
	eclRow := MethodID{Kind: ECLRow, Paradigm: ecl.ClassWise}
	row := func(target string, m MethodID, seed uint64, cw float64) Result {
		return Result{Shift: DigitsShift(target), Method: m, Seed: seed, Target: Scores{ACC: 0.5, CwECE: cw, ECE: cw}}
	}
	rs := []Result{
		row("shear:2", Uncal, 1, 0.10), row("shear:2", eclRow, 1, 0.08), row("shear:2", Control, 1, 0.07),
		row("shear:2", Uncal, 2, 0.10), row("shear:2", eclRow, 2, 0.12), row("shear:2", Control, 2, 0.13),
		row("rotate:30", Uncal, 1, 0.20), row("rotate:30", eclRow, 1, 0.15),
	}
	m, err := NewShiftMap(rs)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Targets) != 2 || m.Targets[0] != (ShiftTarget{"rotate", 30}) || len(m.ECL) != 1 {
		t.Fatalf("targets %v and ECL rows %v, want rotate:30 first and one row", m.Targets, m.ECL)
	}
	check := func(ref string, target ShiftTarget, want ShiftCell, ok bool) {
		t.Helper()
		got, has := m.Cells[ref]["ECL-classwise"][target]
		if has != ok || got.Wins != want.Wins || got.Seeds != want.Seeds || math.Abs(got.Delta-want.Delta) > 1e-9 {
			t.Errorf("%s on %s: %+v (present %v), want %+v (present %v)", ref, target, got, has, want, ok)
		}
	}
	check("Uncal", ShiftTarget{"shear", 2}, ShiftCell{Wins: 1, Seeds: 2, Delta: 0}, true)
	check("CE-finetune", ShiftTarget{"shear", 2}, ShiftCell{Wins: 1, Seeds: 2, Delta: 0}, true)
	check("Uncal", ShiftTarget{"rotate", 30}, ShiftCell{Wins: 1, Seeds: 1, Delta: -5}, true)
	check("CE-finetune", ShiftTarget{"rotate", 30}, ShiftCell{}, false)
	var b bytes.Buffer
	if err := WriteShiftSummary(&b, rs); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[2], "| rotate:30 | 1 | 50.0 |") || !strings.HasPrefix(lines[3], "| shear:2 | 2 | 50.0 |") {
		t.Errorf("summary:\n%s", b.String())
	}
	if _, err := NewShiftMap([]Result{row("fog:1", Uncal, 1, 0)}); err == nil {
		t.Error("a result of an unknown transform: no error")
	}
}
