package images

import (
	"errors"
	"runtime"
	"sync"
)

// Options are Load's settings.
type Options struct {
	// Workers is the number of images decoded at once (GOMAXPROCS when
	// ≤ 0).
	Workers int
	// MaxPixels is the largest image (width × height) accepted
	// (DefaultMaxPixels when ≤ 0).
	MaxPixels int64
	// Skip leaves out images that cannot be read instead of failing.
	Skip bool
}

// Batch is the transformed images Load read.
type Batch struct {
	// X holds the images read, [len(Index), 3, Crop, Crop] in CHW order.
	X []float32
	// Index lists the positions (in the list given to Load) of the
	// images in X, in order: all of them unless some were skipped.
	Index []int
	// Skipped are the errors of the images left out, in order.
	Skipped []*Error
}

// Load decodes the images files[i] and transforms them with t, on
// opt.Workers goroutines. An image that cannot be read stops it with an
// *Error naming the file (the first in the list's order), unless
// opt.Skip, when it is left out and its error listed in Skipped.
func Load(files []string, t Transform, opt Options) (*Batch, error) {
	if err := t.Check(); err != nil {
		return nil, err
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(files))
	per := 3 * t.Crop * t.Crop
	x := make([]float32, len(files)*per)
	errs := make([]error, len(files))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				img, err := Decode(files[i], opt.MaxPixels)
				if err != nil {
					errs[i] = err
					continue
				}
				t.Apply(img, x[i*per:(i+1)*per])
			}
		}()
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	b := &Batch{}
	kept := 0
	for i, err := range errs {
		if err != nil {
			var ie *Error
			if !errors.As(err, &ie) {
				ie = &Error{Path: files[i], Err: err}
			}
			if !opt.Skip {
				return nil, ie
			}
			b.Skipped = append(b.Skipped, ie)
			continue
		}
		copy(x[kept*per:(kept+1)*per], x[i*per:(i+1)*per])
		b.Index = append(b.Index, i)
		kept++
	}
	b.X = x[:kept*per]
	return b, nil
}
