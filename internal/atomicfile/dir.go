package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// ReplaceDir creates or replaces the folder path as a whole with what fill
// writes into a new temporary folder beside it (".NAME.tmp…", mode 0755),
// which takes path's place only once fill returned without error, so that
// path holds either all of the old content or all of the new. The
// temporary folders of a killed ReplaceDir of path are removed first;
// when fill fails, its folder is removed and path is left as it was.
func ReplaceDir(path string, fill func(tmp string) error) (err error) {
	parent, base := filepath.Dir(path), filepath.Base(path)
	stale, err := filepath.Glob(filepath.Join(parent, tmpPattern(path)))
	if err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	for _, s := range stale {
		if err := os.RemoveAll(s); err != nil {
			return fmt.Errorf("atomicfile: %w", err)
		}
	}
	tmp, err := os.MkdirTemp(parent, "."+base+".tmp")
	if err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	if err := fill(tmp); err != nil {
		return err
	}
	old := filepath.Join(parent, "."+base+".tmp-old")
	if err := os.Rename(path, old); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("atomicfile: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	return os.RemoveAll(old)
}
