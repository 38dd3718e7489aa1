// Package digits reads the digit domains of the paper's domain-shift
// experiment: MNIST (IDX files, raw or gzip) and USPS (the text format of The
// Elements of Statistical Learning). Images come back as uint8 grey values
// (0 background) with their labels 0–9. Every reader checks what a header
// claims before allocating for it, and errors name the file and the problem.
package digits

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
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

// readIDX reads an IDX file of unsigned bytes with the given number of
// dimensions and returns its dimensions and data.
func readIDX(path string, dims int) ([]int, []uint8, error) {
	r, closeFn, err := open(path)
	if err != nil {
		return nil, nil, err
	}
	defer closeFn()
	var magic uint32
	if err := binary.Read(r, binary.BigEndian, &magic); err != nil {
		return nil, nil, fmt.Errorf("%s: offset 0: truncated header", path)
	}
	if want := uint32(0x0800 | dims); magic != want {
		return nil, nil, fmt.Errorf("%s: offset 0: magic %#08x, want %#08x (unsigned bytes, %d dimensions)", path, magic, want, dims)
	}
	shape := make([]int, dims)
	total := 1
	for d := range shape {
		var v uint32
		if err := binary.Read(r, binary.BigEndian, &v); err != nil {
			return nil, nil, fmt.Errorf("%s: offset %d: truncated header", path, 4+4*d)
		}
		shape[d] = int(v)
		if v > 0 && total > maxIDXElements/int(v) {
			return nil, nil, fmt.Errorf("%s: offset %d: dimensions %v claim more than %d elements", path, 4+4*d, shape[:d+1], maxIDXElements)
		}
		total *= int(v)
	}
	// Read what is there, at most the claimed size: a forged header cannot
	// make us allocate more than the data actually present.
	data, err := io.ReadAll(io.LimitReader(r, int64(total)))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) != total {
		return nil, nil, fmt.Errorf("%s: offset %d: %d data bytes, header claims %d", path, 4+4*dims+len(data), len(data), total)
	}
	if _, err := r.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("%s: offset %d: data past the %d bytes the header claims", path, 4+4*dims+total, total)
	}
	return shape, data, nil
}

// ReadMNIST reads an IDX image file and its IDX label file.
func ReadMNIST(imagesPath, labelsPath string) (*Images, error) {
	shape, pix, err := readIDX(imagesPath, 3)
	if err != nil {
		return nil, err
	}
	lshape, lab, err := readIDX(labelsPath, 1)
	if err != nil {
		return nil, err
	}
	if lshape[0] != shape[0] {
		return nil, fmt.Errorf("%s has %d labels for the %d images of %s", labelsPath, lshape[0], shape[0], imagesPath)
	}
	labels := make([]int, len(lab))
	for i, l := range lab {
		if l > 9 {
			return nil, fmt.Errorf("%s: offset %d: label %d out of range 0–9", labelsPath, 8+i, l)
		}
		labels[i] = int(l)
	}
	return &Images{N: shape[0], H: shape[1], W: shape[2], Pixels: pix, Labels: labels}, nil
}
