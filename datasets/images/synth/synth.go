package synth

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
)

// The bounds of Options.
const (
	MinSize     = 16
	MaxSize     = 1024
	MaxPerClass = 100_000
)

// Options are Write's settings.
type Options struct {
	PerClass int    // images per class and domain
	Size     int    // the images' side in pixels
	Seed     uint64 // every random choice comes from it
	// Workers render images at once (GOMAXPROCS when ≤ 0); the files do
	// not depend on it.
	Workers int
}

// Check reports settings out of bounds.
func (o Options) Check() error {
	switch {
	case o.PerClass < 1 || o.PerClass > MaxPerClass:
		return fmt.Errorf("synth: %d images per class, want 1 to %d", o.PerClass, MaxPerClass)
	case o.Size < MinSize || o.Size > MaxSize:
		return fmt.Errorf("synth: size %d, want %d to %d", o.Size, MinSize, MaxSize)
	}
	return nil
}

// ReadmeName is the note Write leaves in the root, saying what the set is.
const ReadmeName = "README.txt"

// Write generates the set under dir, which must be absent or empty:
// dir/<style>/<class>/<class>-NNNN.png for every style of Styles and class
// of Classes, opt.PerClass images each, and ReadmeName. The set is made in
// a temporary folder beside dir and renamed to dir once complete, so an
// interrupted Write leaves no partial set. It returns the number of images.
func Write(dir string, opt Options) (int, error) {
	if err := opt.Check(); err != nil {
		return 0, err
	}
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return 0, fmt.Errorf("synth: %s is not empty (want an absent or empty folder)", dir)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return 0, fmt.Errorf("synth: %w", err)
	}
	parent := filepath.Dir(filepath.Clean(dir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return 0, fmt.Errorf("synth: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".partial-")
	if err != nil {
		return 0, fmt.Errorf("synth: %w", err)
	}
	defer os.RemoveAll(tmp)
	n, err := writeAll(tmp, opt)
	if err != nil {
		return 0, err
	}
	note := fmt.Sprintf("A generated stand-in for PACS, not PACS (ecl data synth-domains -per-class %d -size %d -seed %d):\n"+
		"%d shapes %v drawn in %d styles %v, the domains; %d×%d PNGs, %d per class and domain.\n"+
		"Only the rendering style shifts between domains. See docs/images.md.\n",
		opt.PerClass, opt.Size, opt.Seed, len(Classes), Classes, len(Styles), Styles, opt.Size, opt.Size, opt.PerClass)
	if err := os.WriteFile(filepath.Join(tmp, ReadmeName), []byte(note), 0o644); err != nil {
		return 0, fmt.Errorf("synth: %w", err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return 0, fmt.Errorf("synth: %w", err)
	}
	os.Remove(dir) // empty, if there
	if err := os.Rename(tmp, dir); err != nil {
		return 0, fmt.Errorf("synth: %w", err)
	}
	return n, nil
}

// job is one image to write: its style, class and number.
type job struct{ style, class, i int }

// Path is the path, under the root, of image i of class in style (indices
// into Styles and Classes).
func Path(style, class, i int) string {
	return filepath.Join(Styles[style], Classes[class], fmt.Sprintf("%s-%04d.png", Classes[class], i))
}

// Source is the random generator of image i of class in style: its own
// stream of the seed, so that no image depends on another.
func Source(seed uint64, style, class, i int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(style)<<56|uint64(class)<<48|uint64(i)))
}

// writeAll renders and writes every image under root on opt.Workers
// goroutines; the first error (in the images' order) is returned.
func writeAll(root string, opt Options) (int, error) {
	var jobs []job
	for s := range Styles {
		for c := range Classes {
			if err := os.MkdirAll(filepath.Join(root, Styles[s], Classes[c]), 0o755); err != nil {
				return 0, fmt.Errorf("synth: %w", err)
			}
			for i := range opt.PerClass {
				jobs = append(jobs, job{s, c, i})
			}
		}
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	errs := make([]error, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, len(jobs)) {
		wg.Go(func() {
			var buf bytes.Buffer
			for k := range next {
				j := jobs[k]
				img, err := Render(j.class, j.style, opt.Size, Source(opt.Seed, j.style, j.class, j.i))
				if err == nil {
					buf.Reset()
					err = png.Encode(&buf, img)
				}
				if err == nil {
					err = os.WriteFile(filepath.Join(root, Path(j.style, j.class, j.i)), buf.Bytes(), 0o644)
				}
				errs[k] = err
			}
		})
	}
	for k := range jobs {
		next <- k
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return 0, fmt.Errorf("synth: %w", err)
		}
	}
	return len(jobs), nil
}
