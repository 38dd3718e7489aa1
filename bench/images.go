package bench

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/ecl-go/ecl/datasets/images"
	"github.com/ecl-go/ecl/datasets/images/imagestest"
)

// ImageSizes are the input-pipeline rows' JPEG sizes (width, height):
// PACS's 227×227 and a typical ImageNet validation image's 500×375.
var ImageSizes = [][2]int{{227, 227}, {500, 375}}

// ImageRow is the input-pipeline row of w×h JPEGs, also the folder
// WriteJPEGs makes for them: images/decode-resize-crop/WxH.
func ImageRow(w, h int) string { return fmt.Sprintf("images/decode-resize-crop/%dx%d", w, h) }

// ImageTransform is the rows' transform, torchvision's evaluation
// transform of ImageNet networks: resize the shorter side to 256
// (bilinear, antialiased as PIL does), centre crop 224, normalise.
var ImageTransform = images.EvalTransform(256, 224)

// WriteJPEGs writes n w×h JPEGs (quality 90, 4:2:0 chroma, as Go's
// encoder writes them; a smooth colour field with pixel noise) into
// dir/WxH/a and dir/WxH/b, half in each class folder, so that torchvision's
// ImageFolder reads the folder too, unless the folder is there already
// with n images. It returns the files, in ImageFolder's order.
func WriteJPEGs(dir string, w, h, n int) ([]string, error) {
	root := filepath.Join(dir, fmt.Sprintf("%dx%d", w, h))
	if d, err := images.Folder(root); err == nil && d.Len() == n {
		return imageFiles(d), nil
	}
	if err := os.RemoveAll(root); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(uint64(w), uint64(h)))
	for i := range n {
		class := []string{"a", "b"}[i*2/n]
		if err := imagestest.Write(filepath.Join(root, class, fmt.Sprintf("%04d.jpg", i)), imagestest.Image(rng, w, h, 0)); err != nil {
			return nil, err
		}
	}
	d, err := images.Folder(root)
	if err != nil {
		return nil, err
	}
	return imageFiles(d), nil
}

// imageFiles are d's files on disk.
func imageFiles(d *images.Dataset) []string {
	f := make([]string, d.Len())
	for i := range f {
		f[i] = d.File(i)
	}
	return f
}

// LoadImages is one pass of the input pipeline over files: decode,
// resize, centre crop and normalise every image (ImageTransform) on
// workers goroutines (GOMAXPROCS when ≤ 0), as images.Load does for ecl
// features and ecl images.
func LoadImages(files []string, workers int) func() {
	return func() {
		if _, err := images.Load(files, ImageTransform, images.Options{Workers: workers}); err != nil {
			panic(err)
		}
	}
}

// MeasureImages times LoadImages as a benchmark (one warm-up pass
// untimed: the files come from the page cache after it) and returns the
// result and the images per second. BenchmarkImageCache times the cached
// paths.
func MeasureImages(files []string, workers int) (testing.BenchmarkResult, float64) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	res := testing.Benchmark(func(b *testing.B) { loop(b, LoadImages(files, workers)) })
	return res, float64(len(files)) / (float64(res.NsPerOp()) / 1e9)
}

// CacheRow is one row of BenchmarkImageCache: an epoch's loading of the
// images through an evaluation or a training transform, every image
// decoded from its file (then prepared by Prep), or read from a cache of
// the images so prepared, which gives the same tensors.
type CacheRow struct {
	Name string
	Prep images.Prep
	// Eval, or else Train, is the transform.
	Eval  *images.Transform
	Train *images.TrainTransform
}

// CacheRows are torchvision's evaluation and training transforms at 224
// (the evaluation's cache at its resize, 256; the training's bounded to
// its MinSide, 915, which keeps these JPEGs whole) and ecl images's small
// networks' at 28 (cached at 28, and bounded to 115).
func CacheRows() []CacheRow {
	small := images.Transform{Resize: 28, Crop: 28, Mean: images.ImageNetMean, Std: images.ImageNetStd}
	train, smallTrain := images.RandomResizedCrop(224), images.RandomResizedCrop(28)
	return []CacheRow{
		{"eval224", images.Prep{Side: 256}, &ImageTransform, nil},
		{"train224", images.Prep{Side: train.MinSide(), Bound: true}, nil, &train},
		{"eval28", images.Prep{Side: 28}, &small, nil},
		{"train28", images.Prep{Side: smallTrain.MinSide(), Bound: true}, nil, &smallTrain},
	}
}

// Epoch is one epoch of the row over r (the files or a cache): epoch
// counts up so that the training rows draw new crops each time.
func (row CacheRow) Epoch(r images.Reader, workers int) func() {
	epoch := 0
	return func() {
		var err error
		if row.Eval != nil {
			_, err = images.LoadFrom(r, *row.Eval, images.Options{Workers: workers})
		} else {
			_, err = images.LoadTrain(r, *row.Train, 1, epoch, images.Options{Workers: workers})
			epoch++
		}
		if err != nil {
			panic(err)
		}
	}
}
