package digits

// Fuzz targets of every parser. Their seed corpora are in
// testdata/fuzz/<target>/ (valid small files and forged ones: absurd sizes,
// truncation, wrong magic), with the crashers fuzzing found; "go test" runs
// them all. Fuzz one with
//
//	go test -run='^$' -fuzz=FuzzReadSVHN -fuzztime=60s ./datasets/digits

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
)

// allocated returns the bytes f allocates on the heap.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// checkParse fails t when a parse of an n-byte input allocated more than a
// fixed 1 MiB plus perByte bytes per input byte (a parser must not trust a
// claimed size), or returned an error not naming the input.
func checkParse(t *testing.T, n int, perByte, alloc uint64, err error, names ...string) {
	t.Helper()
	if limit := 1<<20 + perByte*uint64(n); alloc > limit {
		t.Fatalf("%d bytes of input: allocated %d bytes, more than %d", n, alloc, limit)
	}
	if err == nil {
		return
	}
	for _, name := range names {
		if strings.HasPrefix(err.Error(), name+": ") || strings.HasPrefix(err.Error(), name+" ") {
			return
		}
	}
	t.Fatalf("error %q does not name the file (%v)", err, names)
}

// checkLabels fails t unless there are n labels, each a digit.
func checkLabels(t *testing.T, labels []int, n int) {
	t.Helper()
	if len(labels) != n {
		t.Fatalf("%d labels for %d images", len(labels), n)
	}
	for i, l := range labels {
		if l < 0 || l > 9 {
			t.Fatalf("label %d of image %d", l, i)
		}
	}
}

func checkImages(t *testing.T, im *Images) {
	t.Helper()
	if im.N < 0 || im.H < 0 || im.W < 0 || len(im.Pixels) != im.N*im.H*im.W {
		t.Fatalf("%d images of %d×%d with %d pixels", im.N, im.H, im.W, len(im.Pixels))
	}
	checkLabels(t, im.Labels, im.N)
}

func FuzzReadMNIST(f *testing.F) {
	f.Fuzz(func(t *testing.T, images, labels []byte) {
		var im *Images
		var err error
		a := allocated(func() {
			im, err = readMNIST(bytes.NewReader(images), "images", bytes.NewReader(labels), "labels")
		})
		// Data are read into a buffer that at most doubles.
		checkParse(t, len(images)+len(labels), 4, a, err, "images", "labels")
		if err == nil {
			checkImages(t, im)
		}
	})
}

func FuzzReadUSPS(f *testing.F) {
	f.Fuzz(func(t *testing.T, text []byte) {
		var im *Images
		var err error
		a := allocated(func() { im, err = readUSPS(bytes.NewReader(text), "usps") })
		// Each line of at least 257 fields costs its copy, its fields
		// (16 bytes each) and 256 pixels.
		checkParse(t, len(text), 64, a, err, "usps")
		if err == nil {
			checkImages(t, im)
			if im.H != 16 || im.W != 16 || im.N < 1 {
				t.Fatalf("%d images of %d×%d", im.N, im.H, im.W)
			}
		}
	})
}

func FuzzReadSVHN(f *testing.F) {
	f.Fuzz(func(t *testing.T, file []byte) {
		var im *ColorImages
		var err error
		a := allocated(func() { im, err = readSVHN(bytes.NewReader(file), "svhn.mat") })
		// Deflate expands at most 1032 times; the buffer at most doubles.
		checkParse(t, len(file), 4096, a, err, "svhn.mat")
		if err != nil {
			return
		}
		if im.N < 1 || im.H != 32 || im.W != 32 || len(im.Pixels) != im.N*3*32*32 {
			t.Fatalf("%d images of %d×%d with %d pixels", im.N, im.H, im.W, len(im.Pixels))
		}
		checkLabels(t, im.Labels, im.N)
	})
}
