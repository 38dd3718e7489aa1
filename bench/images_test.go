package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ecl-go/ecl/datasets/images"
)

// BenchmarkImages times the input pipeline over 100 JPEGs of each of
// ImageSizes (written into a temporary folder first) and reports images
// per second.
func BenchmarkImages(b *testing.B) {
	dir := b.TempDir()
	for _, s := range ImageSizes {
		files, err := WriteJPEGs(dir, s[0], s[1], 100)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(filepath.Base(ImageRow(s[0], s[1])), func(b *testing.B) {
			loop(b, LoadImages(files, 0))
			b.ReportMetric(float64(len(files)*b.N)/b.Elapsed().Seconds(), "images/s")
		})
	}
}

// BenchmarkImageCache times one epoch of loading 100 JPEGs of each of
// ImageSizes through each of CacheRows, decoding the files ("files") or
// reading a cache built beforehand, untimed ("cache"), and reports images
// per second (the target: the cache ≥ 10× the files).
func BenchmarkImageCache(b *testing.B) {
	dir := b.TempDir()
	for _, s := range ImageSizes {
		files, err := WriteJPEGs(dir, s[0], s[1], 100)
		if err != nil {
			b.Fatal(err)
		}
		for _, row := range CacheRows() {
			c, err := images.OpenCache(files, images.CacheConfig{Dir: filepath.Join(dir, "cache", fmt.Sprintf("%dx%d-%s", s[0], s[1], row.Prep)), Prep: row.Prep})
			if err != nil {
				b.Fatal(err)
			}
			for _, from := range []struct {
				name string
				r    images.Reader
			}{{"files", images.Files(files, 0, row.Prep)}, {"cache", c}} {
				b.Run(fmt.Sprintf("%dx%d/%s/%s", s[0], s[1], row.Name, from.name), func(b *testing.B) {
					loop(b, row.Epoch(from.r, 0))
					b.ReportMetric(float64(len(files)*b.N)/b.Elapsed().Seconds(), "images/s")
				})
			}
			c.Close()
		}
	}
}

// The cache rows read the same tensors from the files and from the
// cache.
func TestCacheRows(t *testing.T) {
	dir := t.TempDir()
	files, err := WriteJPEGs(dir, 40, 30, 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range CacheRows() {
		c, err := images.OpenCache(files, images.CacheConfig{Dir: filepath.Join(dir, row.Name), Prep: row.Prep})
		if err != nil {
			t.Fatal(err)
		}
		var x [2][]float32
		for k, r := range []images.Reader{images.Files(files, 0, row.Prep), c} {
			var b *images.Batch
			if row.Eval != nil {
				b, err = images.LoadFrom(r, *row.Eval, images.Options{})
			} else {
				b, err = images.LoadTrain(r, *row.Train, 1, 0, images.Options{})
			}
			if err != nil {
				t.Fatal(err)
			}
			x[k] = b.X
		}
		if !slices.Equal(x[0], x[1]) {
			t.Errorf("%s: the cache's tensors differ from the files'", row.Name)
		}
		row.Epoch(c, 2)()
		c.Close()
	}
}

// WriteJPEGs makes an ImageFolder tree of two classes, reuses it when it
// is complete, and LoadImages reads it.
func TestWriteJPEGs(t *testing.T) {
	dir := t.TempDir()
	files, err := WriteJPEGs(dir, 40, 30, 4)
	if err != nil {
		t.Fatal(err)
	}
	d, err := images.Folder(filepath.Join(dir, "40x30"))
	if err != nil || d.Len() != 4 || d.Labels[1] != 0 || d.Labels[2] != 1 || len(files) != 4 {
		t.Fatalf("%v %+v %v", err, d, files)
	}
	img, err := images.Decode(files[0], 0)
	if err != nil || img.W != 40 || img.H != 30 {
		t.Fatalf("%v %v", err, img)
	}
	stat, _ := os.Stat(files[3])
	if _, err := WriteJPEGs(dir, 40, 30, 4); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.Stat(files[3]); !again.ModTime().Equal(stat.ModTime()) {
		t.Error("the complete folder was written again")
	}
	LoadImages(files, 2)()
	if ImageRow(500, 375) != "images/decode-resize-crop/500x375" {
		t.Error(ImageRow(500, 375))
	}
}
