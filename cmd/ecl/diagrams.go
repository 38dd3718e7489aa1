package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ecl-go/ecl/experiment"
)

// writeStudyDiagrams draws the reliability diagrams of the first seed's
// models on the target into dir/diagrams, one set per setup (which names
// the shift) and method, from the calibrations their runs recorded. The
// folder is replaced as a whole: the diagrams are rendered into a
// temporary folder that takes its place once complete, so that they always
// belong to the results beside them; the temporary folders of a study
// killed while drawing are removed first.
func writeStudyDiagrams(dir string, rs []experiment.Result) error {
	if len(rs) == 0 {
		return nil
	}
	stale, err := filepath.Glob(filepath.Join(dir, ".diagrams.tmp*"))
	if err != nil {
		return err
	}
	for _, s := range stale {
		if err := os.RemoveAll(s); err != nil {
			return err
		}
	}
	tmp, err := os.MkdirTemp(dir, ".diagrams.tmp")
	if err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	first := rs[0].Seed
	for _, r := range rs {
		if r.Seed != first || r.Diagram == nil {
			continue
		}
		c := calibrations{top: r.Diagram.TopLabel, cw: r.Diagram.Classwise}
		if r.Diagram.Canonical != nil {
			c.can = *r.Diagram.Canonical
		}
		setup := strings.NewReplacer(" ", "_", "=", "", "/", "-", "→", "-to-").Replace(r.Setup)
		prefix := fmt.Sprintf("%s-%s-", setup, r.Method)
		if err := writeDiagrams(tmp, prefix, fmt.Sprintf("%s, %s, seed %d", r.Method, r.Shift, r.Seed), c); err != nil {
			return err
		}
	}
	final, old := filepath.Join(dir, "diagrams"), filepath.Join(dir, ".diagrams.tmp-old")
	if err := os.Rename(final, old); err != nil && !os.IsNotExist(err) {
		return err
	}
	if err := os.Rename(tmp, final); err != nil {
		return err
	}
	return os.RemoveAll(old)
}
