package experiment

import "io"

// ShiftMap is stub.
type ShiftMap struct{}

// Write is stub.
func (m ShiftMap) Write(w io.Writer) error { return nil }

// WriteShiftFigures is stub.
func WriteShiftFigures(dir string, rs []Result) (ShiftMap, error) { return ShiftMap{}, nil }
