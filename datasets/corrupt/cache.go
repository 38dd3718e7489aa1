package corrupt

import (
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"

	"github.com/ecl-go/ecl/datasets/digits"
	"github.com/ecl-go/ecl/internal/atomicfile"
)

var keyPattern = regexp.MustCompile(`^[A-Za-z0-9._:+=-]+$`)

// Cached returns the image set stored in dir under key, or makes it with
// build and stores it there (written atomically: a killed writer leaves no
// partial file). With dir empty it only makes it. Key names what the set
// depends on (data set, transform, level, seed, sizes); letters, digits
// and . _ : + = - only.
func Cached(dir, key string, build func() (*digits.Images, error)) (*digits.Images, error) {
	if dir == "" {
		return build()
	}
	if !keyPattern.MatchString(key) {
		return nil, fmt.Errorf("corrupt: cache key %q holds characters other than letters, digits and . _ : + = -", key)
	}
	path := filepath.Join(dir, key+".gob")
	f, err := os.Open(path)
	if err == nil {
		defer f.Close()
		var im digits.Images
		if err := gob.NewDecoder(f).Decode(&im); err != nil {
			return nil, fmt.Errorf("corrupt: cached %s: %w (remove it)", path, err)
		}
		if len(im.Pixels) != im.N*im.H*im.W || len(im.Labels) != im.N {
			return nil, fmt.Errorf("corrupt: cached %s holds %d pixels and %d labels for %d images of %d×%d (remove it)", path, len(im.Pixels), len(im.Labels), im.N, im.H, im.W)
		}
		return &im, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	im, err := build()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := atomicfile.Write(path, func(w io.Writer) error { return gob.NewEncoder(w).Encode(im) }); err != nil {
		return nil, err
	}
	return im, nil
}
