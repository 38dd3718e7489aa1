package experiment

import (
	"fmt"
	"strings"

	"github.com/ecl-go/ecl/datasets/sim"
)

// ShiftID names the covariate shift a result was measured under: a
// simulated shift, or a domain task (digits, images) by its target domain. It is written as
// the name result files have always held (String: "normal",
// "uniform-wide", "→usps") and read back from it (ParseShift).
type ShiftID struct {
	// Sim is the simulated shift, when Target is empty.
	Sim sim.Kind
	// Target is the domain task's target domain.
	Target string
}

// SimShift names the simulated shift k.
func SimShift(k sim.Kind) ShiftID { return ShiftID{Sim: k} }

// DigitsShift names the domain task (digits or images) whose target
// domain is target.
func DigitsShift(target string) ShiftID { return ShiftID{Target: target} }

func (s ShiftID) String() string {
	if s.Target != "" {
		return "→" + s.Target
	}
	return s.Sim.String()
}

// ParseShift reads a shift's name back: "→" and a target domain, or a
// simulated shift's name (sim.ParseKind).
func ParseShift(s string) (ShiftID, error) {
	if target, ok := strings.CutPrefix(s, "→"); ok {
		if target == "" {
			return ShiftID{}, fmt.Errorf("experiment: shift %q names no target domain", s)
		}
		return DigitsShift(target), nil
	}
	k, err := sim.ParseKind(s)
	if err != nil {
		return ShiftID{}, fmt.Errorf("experiment: shift %q is neither a simulated shift nor →<target domain>: %w", s, err)
	}
	return SimShift(k), nil
}

// MarshalText writes the shift's name.
func (s ShiftID) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a shift's name (ParseShift).
func (s *ShiftID) UnmarshalText(b []byte) error {
	id, err := ParseShift(string(b))
	if err != nil {
		return err
	}
	*s = id
	return nil
}
