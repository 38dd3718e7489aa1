package bench

import (
	"os"
	"path/filepath"
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
