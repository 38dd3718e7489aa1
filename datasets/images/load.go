package images

import (
	"errors"
	"fmt"
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

// Reader gives the images of a list by their index; its methods are safe
// for concurrent use. Files decodes them from their files, a Cache reads
// them from its shards. An image that cannot be read is an *Error naming
// its file; any other error (a damaged cache) is not an image's and stops
// a Load even with Skip.
type Reader interface {
	Len() int
	Image(i int) (*RGB, error)
}

// Files is a Reader of the images files[i]: Decode (with maxPixels), then
// prep (nothing with the zero Prep).
func Files(files []string, maxPixels int64, prep Prep) Reader {
	return fileReader{files, maxPixels, prep}
}

type fileReader struct {
	files     []string
	maxPixels int64
	prep      Prep
}

func (f fileReader) Len() int { return len(f.files) }

func (f fileReader) Image(i int) (*RGB, error) {
	img, err := Decode(f.files[i], f.maxPixels)
	if err != nil {
		return nil, err
	}
	return f.prep.Apply(img), nil
}

// Load decodes the images files[i] and transforms them with t, on
// opt.Workers goroutines. An image that cannot be read stops it with an
// *Error naming the file (the first in the list's order), unless
// opt.Skip, when it is left out and its error listed in Skipped.
func Load(files []string, t Transform, opt Options) (*Batch, error) {
	return LoadFrom(Files(files, opt.MaxPixels, Prep{}), t, opt)
}

// LoadFrom is Load of the images r gives (opt.MaxPixels is then r's
// business). They are transformed as they come: from a Cache of
// Prep{Side: t.Resize}, the result is Load's of the files, byte for byte.
func LoadFrom(r Reader, t Transform, opt Options) (*Batch, error) {
	if err := t.Check(); err != nil {
		return nil, err
	}
	return load(r, 3*t.Crop*t.Crop, opt, func(_ int, img *RGB, dst []float32) { t.Apply(img, dst) })
}

// LoadTrain is LoadFrom with the training transform t, image i's random
// choices drawn from Stream(seed, epoch, i): the same for a seed and epoch
// whatever the number of workers.
func LoadTrain(r Reader, t TrainTransform, seed uint64, epoch int, opt Options) (*Batch, error) {
	if err := t.Check(); err != nil {
		return nil, err
	}
	if epoch < 0 || epoch >= 1<<24 {
		return nil, fmt.Errorf("images: epoch %d, want 0 to %d", epoch, 1<<24-1)
	}
	return load(r, 3*t.Size*t.Size, opt, func(i int, img *RGB, dst []float32) { t.Apply(img, Stream(seed, epoch, i), dst) })
}

// load reads r's images on opt.Workers goroutines and has apply write
// image i's per values into its row of the batch.
func load(r Reader, per int, opt Options, apply func(i int, img *RGB, dst []float32)) (*Batch, error) {
	n := r.Len()
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, n)
	x := make([]float32, n*per)
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				img, err := r.Image(i)
				if err != nil {
					errs[i] = err
					continue
				}
				apply(i, img, x[i*per:(i+1)*per])
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	b := &Batch{}
	kept := 0
	for i, err := range errs {
		if err != nil {
			var ie *Error
			if !errors.As(err, &ie) || !opt.Skip {
				return nil, err
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
