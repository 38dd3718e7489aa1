package plot

import (
	"os"
	"path/filepath"

	"gonum.org/v1/plot/vg"

	"github.com/ecl-go/ecl/ecl/metrics"
)

// DiagramStyle is the reliability diagrams' size, as a factor on each
// panel's default size, and their PNG resolution (SVG is vector).
type DiagramStyle struct {
	Scale float64
	DPI   int
}

// scale is the size factor as a length ratio.
func (s DiagramStyle) scale() vg.Length { return vg.Length(s.Scale) }

// WriteDiagrams writes the top-label, class-wise and (for K = 3) canonical
// reliability diagrams of c as PNG and SVG into dir (created if need be),
// file names prefixed by prefix ("top-label.png", "classwise.svg", …),
// with the given title, in the given style.
func WriteDiagrams(dir, prefix, title string, c metrics.Calibrations, style DiagramStyle) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	top, err := TopLabel(c.Top, title)
	if err != nil {
		return err
	}
	cw, err := Classwise(c.Classwise, title)
	if err != nil {
		return err
	}
	type diagram struct {
		name string
		fig  Figure
		w, h vg.Length // per panel
	}
	diagrams := []diagram{{"top-label", Figure{{top}}, 12 * vg.Centimeter, 10 * vg.Centimeter}, {"classwise", cw, 11 * vg.Centimeter, 9 * vg.Centimeter}}
	if c.Canonical.K == 3 {
		can, err := Canonical(c.Canonical, title)
		if err != nil {
			return err
		}
		diagrams = append(diagrams, diagram{"canonical", Figure{{can}}, 14 * vg.Centimeter, 11 * vg.Centimeter})
	}
	for _, d := range diagrams {
		for _, ext := range []string{".png", ".svg"} {
			if err := SaveFigureDPI(d.fig, filepath.Join(dir, prefix+d.name+ext), d.w*style.scale(), d.h*style.scale(), style.DPI); err != nil {
				return err
			}
		}
	}
	return nil
}
