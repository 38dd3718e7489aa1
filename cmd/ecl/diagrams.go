package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/experiment"
)

// writeStudyDiagrams draws the reliability diagrams of the first seed's
// models (k classes) on the target into dir/diagrams, one set per setup
// (which names the shift) and method.
func writeStudyDiagrams(dir string, k int, rs []experiment.Result) error {
	if len(rs) == 0 {
		return nil
	}
	first := rs[0].Seed
	for _, r := range rs {
		if r.Seed != first {
			continue
		}
		var c calibrations
		var err error
		if c.top, err = metrics.ECE(r.TargetProbs, k, r.TargetLabels, metrics.Options{}); err != nil {
			return err
		}
		if c.cw, err = metrics.ClasswiseECE(r.TargetProbs, k, r.TargetLabels, metrics.Options{}); err != nil {
			return err
		}
		if c.can, err = metrics.CanonicalECE(r.TargetProbs, k, r.TargetLabels, metrics.Options{}); err != nil {
			return err
		}
		setup := strings.NewReplacer(" ", "_", "=", "", "/", "-", "→", "-to-").Replace(r.Setup)
		prefix := fmt.Sprintf("%s-%s-", setup, r.Method)
		if err := writeDiagrams(filepath.Join(dir, "diagrams"), prefix, fmt.Sprintf("%s, %s, seed %d", r.Method, r.Shift, r.Seed), c); err != nil {
			return err
		}
	}
	return nil
}
