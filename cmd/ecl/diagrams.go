package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"strconv"

	"github.com/ecl-go/ecl/ecl/plot"
)

// diagramFlags registers -diagram-scale and -diagram-dpi on fs; a value
// that is not positive (and finite) fails fs.Parse, before any work.
func diagramFlags(fs *flag.FlagSet) *plot.DiagramStyle {
	s := &plot.DiagramStyle{Scale: 1, DPI: plot.DefaultDPI}
	fs.Func("diagram-scale", "size of the reliability diagrams, a factor on each panel's default (12×10 cm top-label) (default 1)", func(v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f > 0) || math.IsInf(f, 0) {
			return errors.New("want a finite number > 0")
		}
		s.Scale = f
		return nil
	})
	fs.Func("diagram-dpi", fmt.Sprintf("resolution of the PNG reliability diagrams, dots per inch (SVG is vector) (default %d)", plot.DefaultDPI), func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return errors.New("want a whole number ≥ 1")
		}
		s.DPI = n
		return nil
	})
	return s
}
