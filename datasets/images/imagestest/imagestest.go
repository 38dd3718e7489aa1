package imagestest

import (
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// Image is a random w×h image: a smooth colour field with noise, RGB,
// grey or RGBA by kind (0, 1, 2).
func Image(rng *rand.Rand, w, h, kind int) image.Image {
	var corners [4][3]float64
	for i := range corners {
		for c := range 3 {
			corners[i][c] = rng.Float64() * 255
		}
	}
	at := func(x, y, c int) uint8 {
		u, v := float64(x)/float64(max(w-1, 1)), float64(y)/float64(max(h-1, 1))
		f := (1-u)*(1-v)*corners[0][c] + u*(1-v)*corners[1][c] + (1-u)*v*corners[2][c] + u*v*corners[3][c]
		return uint8(max(0, min(255, f+rng.NormFloat64()*10)))
	}
	r := image.Rect(0, 0, w, h)
	switch kind % 3 {
	case 1:
		m := image.NewGray(r)
		for y := range h {
			for x := range w {
				m.SetGray(x, y, color.Gray{at(x, y, 0)})
			}
		}
		return m
	case 2:
		m := image.NewNRGBA(r)
		for y := range h {
			for x := range w {
				m.SetNRGBA(x, y, color.NRGBA{at(x, y, 0), at(x, y, 1), at(x, y, 2), uint8(rng.IntN(256))})
			}
		}
		return m
	}
	m := image.NewRGBA(r)
	for y := range h {
		for x := range w {
			m.SetRGBA(x, y, color.RGBA{at(x, y, 0), at(x, y, 1), at(x, y, 2), 255})
		}
	}
	return m
}

// Write writes img to path as JPEG (quality 90) or PNG by its extension,
// making the folders, and returns the error.
func Write(path string, img image.Image) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if filepath.Ext(path) == ".png" {
		err = png.Encode(f, img)
	} else {
		err = jpeg.Encode(f, img, &jpeg.Options{Quality: 90})
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Tree writes an ImageFolder tree under dir: for each class name, n
// images of sides 12 to 40 pixels, alternately JPEG and PNG, named
// img-00.jpg, img-01.png, …, drawn from seed. It returns the paths
// relative to dir, in the order torchvision's ImageFolder lists them when
// class names sort as given.
func Tree(dir string, classes []string, n int, seed uint64) ([]string, error) {
	rng := rand.New(rand.NewPCG(seed, 7))
	var paths []string
	for _, c := range classes {
		for i := range n {
			ext := ".jpg"
			if i%2 == 1 {
				ext = ".png"
			}
			rel := fmt.Sprintf("%s/img-%02d%s", c, i, ext)
			img := Image(rng, 12+rng.IntN(29), 12+rng.IntN(29), rng.IntN(3))
			if err := Write(filepath.Join(dir, filepath.FromSlash(rel)), img); err != nil {
				return nil, err
			}
			paths = append(paths, rel)
		}
	}
	return paths, nil
}

// Domains writes a root of image domains, one Tree per name of domains
// (each of the classes, n images per class), the i-th drawn from seed+i.
func Domains(root string, domains, classes []string, n int, seed uint64) error {
	for i, d := range domains {
		if _, err := Tree(filepath.Join(root, d), classes, n, seed+uint64(i)); err != nil {
			return err
		}
	}
	return nil
}

// TempDomains writes three domains (art, photo, sketch) of two classes
// (dog, horse) of n images each, drawn from seed 0, in a temporary folder
// of t, and returns it; a failure ends the test.
func TempDomains(t testing.TB, n int) string {
	t.Helper()
	root := t.TempDir()
	if err := Domains(root, []string{"art", "photo", "sketch"}, []string{"dog", "horse"}, n, 0); err != nil {
		t.Fatal(err)
	}
	return root
}
