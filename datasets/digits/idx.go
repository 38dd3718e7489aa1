package digits

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// Images is a set of equally sized grey images with labels.
type Images struct {
	N, H, W int
	Pixels  []uint8 // N·H·W, row-major per image
	Labels  []int   // N digits 0–9
}

// maxIDXElements bounds what an IDX header may claim: more than the largest
// real file (MNIST training images, 47 million bytes) by a wide margin.
const maxIDXElements = 1 << 28

// open returns a reader of path's content, gunzipped when it ends in .gz.
func open(path string) (io.Reader, func() error, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	if !strings.HasSuffix(path, ".gz") {
		return bufio.NewReader(f), f.Close, nil
	}
	z, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return z, func() error { z.Close(); return f.Close() }, nil
}

// readPath reads path, opened as open does, with read.
func readPath[T any](path string, read func(r io.Reader, path string) (*T, error)) (*T, error) {
	r, closeFn, err := open(path)
	if err != nil {
		return nil, err
	}
	defer closeFn()
	return read(r, path)
}

// readUpTo reads at most n bytes from r, fewer if r ends first. Its buffer
// grows with what r delivers, so a forged size costs memory only in
// proportion to the data actually present.
func readUpTo(r io.Reader, n int64) ([]byte, error) {
	buf := make([]byte, 0, min(n, 1<<16))
	for int64(len(buf)) < n {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, int(min(n, 2*int64(len(buf))))-len(buf))
		}
		k, err := r.Read(buf[len(buf):int(min(n, int64(cap(buf))))])
		buf = buf[:len(buf)+k]
		if err == io.EOF {
			break
		}
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// readIDX reads an IDX file of unsigned bytes with the given number of
// dimensions from r and returns its dimensions and data; errors name the
// file as name.
func readIDX(r io.Reader, name string, dims int) ([]int, []uint8, error) {
	var magic uint32
	if err := binary.Read(r, binary.BigEndian, &magic); err != nil {
		return nil, nil, fmt.Errorf("%s: offset 0: truncated header", name)
	}
	if want := uint32(0x0800 | dims); magic != want {
		return nil, nil, fmt.Errorf("%s: offset 0: magic %#08x, want %#08x (unsigned bytes, %d dimensions)", name, magic, want, dims)
	}
	shape := make([]int, dims)
	total := 1
	for d := range shape {
		var v uint32
		if err := binary.Read(r, binary.BigEndian, &v); err != nil {
			return nil, nil, fmt.Errorf("%s: offset %d: truncated header", name, 4+4*d)
		}
		shape[d] = int(v)
		if v > 0 && total > maxIDXElements/int(v) {
			return nil, nil, fmt.Errorf("%s: offset %d: dimensions %v claim more than %d elements", name, 4+4*d, shape[:d+1], maxIDXElements)
		}
		total *= int(v)
	}
	data, err := readUpTo(r, int64(total))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) != total {
		return nil, nil, fmt.Errorf("%s: offset %d: %d data bytes, header claims %d", name, 4+4*dims+len(data), len(data), total)
	}
	if _, err := io.ReadFull(r, make([]byte, 1)); err != io.EOF {
		return nil, nil, fmt.Errorf("%s: offset %d: data past the %d bytes the header claims", name, 4+4*dims+total, total)
	}
	return shape, data, nil
}

// ReadMNIST reads an IDX image file and its IDX label file, raw or gzip.
func ReadMNIST(imagesPath, labelsPath string) (*Images, error) {
	ri, closeImages, err := open(imagesPath)
	if err != nil {
		return nil, err
	}
	defer closeImages()
	rl, closeLabels, err := open(labelsPath)
	if err != nil {
		return nil, err
	}
	defer closeLabels()
	return readMNIST(ri, imagesPath, rl, labelsPath)
}

// readMNIST reads IDX images and labels from two readers; errors name them
// as imagesName and labelsName.
func readMNIST(images io.Reader, imagesName string, labels io.Reader, labelsName string) (*Images, error) {
	shape, pix, err := readIDX(images, imagesName, 3)
	if err != nil {
		return nil, err
	}
	lshape, lab, err := readIDX(labels, labelsName, 1)
	if err != nil {
		return nil, err
	}
	if lshape[0] != shape[0] {
		return nil, fmt.Errorf("%s has %d labels for the %d images of %s", labelsName, lshape[0], shape[0], imagesName)
	}
	out := make([]int, len(lab))
	for i, l := range lab {
		if l > 9 {
			return nil, fmt.Errorf("%s: offset %d: label %d out of range 0–9", labelsName, 8+i, l)
		}
		out[i] = int(l)
	}
	return &Images{N: shape[0], H: shape[1], W: shape[2], Pixels: pix, Labels: out}, nil
}
