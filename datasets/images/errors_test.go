package images

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// pngHeader is a PNG signature and an IHDR chunk claiming w×h 8-bit RGB
// pixels, with nothing after it.
func pngHeader(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := binary.BigEndian.AppendUint32(nil, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 2, 0, 0, 0)
	chunk := append([]byte("IHDR"), ihdr...)
	binary.Write(&b, binary.BigEndian, uint32(len(ihdr)))
	b.Write(chunk)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	return b.Bytes()
}

// writeFile writes b to dir/name, making its folders.
func writeFile(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// fixture is the bytes of testdata/img/name.
func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/img/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Bad files give an *Error naming the file; a header claiming too many
// pixels is refused before decoding (the 3·10¹⁰-byte image is never
// allocated); Skip counts them and keeps the rest in order.
func TestBadFiles(t *testing.T) {
	dir := t.TempDir()
	jpg := fixture(t, "rgb420.jpg")
	good := writeFile(t, dir, "good.jpg", jpg)
	cases := []struct {
		name string
		b    []byte
		want string
	}{
		{"truncated.jpg", jpg[:len(jpg)/2], "decoding the jpeg"},
		{"text.png", []byte("not an image at all\n"), "not a JPEG or PNG image"},
		{"empty.jpg", nil, "not a JPEG or PNG image"},
		{"huge.png", pngHeader(100_000, 100_000), "more than the limit"},
		// SOI, a JFIF APP0 and a baseline SOF0 of one component,
		// 65535×65535, and nothing more.
		{"huge.jpg", []byte{0xff, 0xd8, 0xff, 0xe0, 0, 16, 'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0,
			0xff, 0xc0, 0, 11, 8, 0xff, 0xff, 0xff, 0xff, 1, 1, 0x11, 0}, "more than the limit"},
		{"cut.png", fixture(t, "rgba.png")[:200], "decoding the png"},
	}
	var files []string
	for _, c := range cases {
		p := writeFile(t, dir, c.name, c.b)
		files = append(files, good, p)
		_, err := Decode(p, 0)
		var ie *Error
		if !errors.As(err, &ie) || ie.Path != p || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want an *Error naming the file with %q", c.name, err, c.want)
		}
		if strings.HasPrefix(c.name, "huge") && !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s: error %v is not ErrTooLarge", c.name, err)
		}
		_, err = Load([]string{good, p}, EvalTransform(8, 8), Options{Workers: 2})
		if !errors.As(err, &ie) || ie.Path != p {
			t.Errorf("Load with %s: error %v, want an *Error naming it", c.name, err)
		}
	}
	if _, err := Decode(good, 100); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a 31×27 image under a limit of 100 pixels: error %v, want ErrTooLarge", err)
	}
	b, err := Load(files, EvalTransform(8, 8), Options{Workers: 3, Skip: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(b.Index, []int{0, 2, 4, 6, 8, 10}) || len(b.Skipped) != len(cases) || len(b.X) != 6*3*8*8 {
		t.Fatalf("skip: kept %v, %d skipped, %d values", b.Index, len(b.Skipped), len(b.X))
	}
	for i, s := range b.Skipped {
		if s.Path != files[2*i+1] {
			t.Errorf("skipped %d is %s, want %s", i, s.Path, files[2*i+1])
		}
	}
	one, err := Load([]string{good}, EvalTransform(8, 8), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range len(cases) {
		if !slices.Equal(b.X[i*192:(i+1)*192], one.X) {
			t.Fatalf("image %d of the skipping load differs from the good image loaded alone", i)
		}
	}
}

func TestTransformCheck(t *testing.T) {
	for _, tr := range []Transform{EvalTransform(0, 0), EvalTransform(8, 9), EvalTransform(MaxSide+1, 8), {Resize: 8, Crop: 8}} {
		if err := tr.Check(); err == nil {
			t.Errorf("%+v: no error", tr)
		}
	}
	if _, err := Load(nil, EvalTransform(8, 9), Options{}); err == nil {
		t.Error("Load with crop > resize: no error")
	}
}

// Size is torchvision's: shorter side s, longer int(s·long/short).
func TestSize(t *testing.T) {
	for _, c := range [][5]int{{500, 375, 256, 341, 256}, {375, 500, 256, 256, 341}, {100, 100, 256, 256, 256}, {65, 48, 8, 10, 8}, {14, 19, 28, 28, 38}} {
		if w, h := Size(c[0], c[1], c[2]); w != c[3] || h != c[4] {
			t.Errorf("Size(%d, %d, %d) = %d, %d, want %d, %d", c[0], c[1], c[2], w, h, c[3], c[4])
		}
	}
}

// Folder orders classes and files as torchvision's ImageFolder: classes
// by sorted folder name, files by sorted directory path, then name
// ("dog/sub" before "dog/sub c"; the order below is what torchvision
// 0.14's ImageFolder lists for this tree).
func TestFolderOrder(t *testing.T) {
	dir := t.TempDir()
	png := fixture(t, "pal.png")
	for _, p := range []string{"dog/b.png", "dog/a.JPG", "dog/sub/c.png", "dog/sub c/d.png", "cat/z.png", "cat/notes.txt", "top.png", "bird/x/y.jpeg"} {
		writeFile(t, dir, p, png)
	}
	d, err := Folder(dir)
	if err != nil {
		t.Fatal(err)
	}
	wantPaths := []string{"bird/x/y.jpeg", "cat/z.png", "dog/a.JPG", "dog/b.png", "dog/sub/c.png", "dog/sub c/d.png"}
	if !slices.Equal(d.Classes, []string{"bird", "cat", "dog"}) || !slices.Equal(d.Paths, wantPaths) || !slices.Equal(d.Labels, []int{0, 1, 2, 2, 2, 2}) {
		t.Errorf("Folder: classes %q, paths %q, labels %v", d.Classes, d.Paths, d.Labels)
	}
	if d.File(0) != filepath.Join(dir, "bird", "x", "y.jpeg") {
		t.Errorf("File(0) = %s", d.File(0))
	}
	f, err := Flat(dir)
	if err != nil {
		t.Fatal(err)
	}
	wantFlat := []string{"bird/x/y.jpeg", "cat/z.png", "dog/a.JPG", "dog/b.png", "dog/sub c/d.png", "dog/sub/c.png", "top.png"}
	if !slices.Equal(f.Paths, wantFlat) || f.Labels != nil {
		t.Errorf("Flat: paths %q, labels %v", f.Paths, f.Labels)
	}
	if has, err := HasClasses(dir); err != nil || has {
		t.Errorf("HasClasses with top.png: %v, %v", has, err)
	}
	os.Remove(filepath.Join(dir, "top.png"))
	if has, err := HasClasses(dir); err != nil || !has {
		t.Errorf("HasClasses: %v, %v", has, err)
	}
	// A class without images, as in torchvision, is an error naming it.
	os.MkdirAll(filepath.Join(dir, "empty"), 0o755)
	if _, err := Folder(dir); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty class: error %v", err)
	}
	os.Remove(filepath.Join(dir, "empty"))
	// A format torchvision reads but Go's library does not is listed
	// apart; a class of such files only is not empty.
	writeFile(t, dir, "cat/w.webp", png)
	writeFile(t, dir, "eel/v.BMP", png)
	if d, err := Folder(dir); err != nil || !slices.Equal(d.Unreadable, []string{"cat/w.webp", "eel/v.BMP"}) || !slices.Equal(d.Paths, wantPaths) || !slices.Equal(d.Classes, []string{"bird", "cat", "dog", "eel"}) {
		t.Errorf("webp, bmp: %+v, %v", d, err)
	}
	if _, err := Flat(t.TempDir()); err == nil {
		t.Error("Flat of an empty folder: no error")
	}
}

// FuzzDecode: any bytes give an image of the header's size or an error,
// never a panic, and nothing above the pixel limit is decoded.
func FuzzDecode(f *testing.F) {
	for _, name := range fixtureNames {
		b, err := os.ReadFile("testdata/img/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(pngHeader(3, 5))
	f.Fuzz(func(t *testing.T, b []byte) {
		img, err := decodeSeeker(bytes.NewReader(b), 1<<14)
		if err != nil {
			return
		}
		if img.W*img.H > 1<<14 || len(img.Pix) != 3*img.W*img.H {
			t.Fatalf("%d×%d image with %d bytes", img.W, img.H, len(img.Pix))
		}
		EvalTransform(8, 6).Apply(img, nil)
	})
}
