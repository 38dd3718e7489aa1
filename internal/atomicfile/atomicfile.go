// Package atomicfile writes files so that a reader never sees a partial
// result and an existing file is never lost: the content goes to a temporary
// file in the same directory, which is synced and renamed over the target
// only when everything was written, and the directory is synced after the
// rename so that the new name survives a crash. ReplaceDir replaces a
// folder as a whole the same way, by renames.
//
// A process killed between writing and renaming leaves its temporary file
// (".NAME.tmp…") behind; the next Write of the same path removes it, and
// RemoveStale removes those of a path that will not be written again. One
// writer per path at a time is assumed.
package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// tmpPattern is the os.CreateTemp pattern of path's temporary files.
func tmpPattern(path string) string { return "." + filepath.Base(path) + ".tmp*" }

// RemoveStale removes the temporary files a killed Write of path left.
func RemoveStale(path string) error {
	stale, err := filepath.Glob(filepath.Join(filepath.Dir(path), tmpPattern(path)))
	if err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	for _, s := range stale {
		if err := os.Remove(s); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("atomicfile: %w", err)
		}
	}
	return nil
}

// Write creates or replaces path with what write produces. When write or any
// file operation fails, path is left as it was and the temporary file is
// removed.
func Write(path string, write func(w io.Writer) error) (err error) {
	if err := RemoveStale(path); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, tmpPattern(path))
	if err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = write(tmp); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	if err = os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	return syncDir(dir)
}

// syncDir flushes dir's entries (the rename) to stable storage.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("atomicfile: syncing directory %s: %w", dir, err)
	}
	return nil
}
