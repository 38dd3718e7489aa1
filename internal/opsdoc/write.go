package opsdoc

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Path is the table's file, relative to the module root.
const Path = "docs/ops.md"

// Write builds the table of the module at root and writes it to Path; it
// fails, writing nothing, when a name breaks the rule of one name per op.
func Write(root string) error {
	t, err := Build(root)
	if err != nil {
		return err
	}
	if len(t.Mismatches) > 0 {
		return fmt.Errorf("names break the rule of one name per op:\n\t%s", strings.Join(t.Mismatches, "\n\t"))
	}
	return os.WriteFile(filepath.Join(root, filepath.FromSlash(Path)), t.Markdown(), 0o644)
}
