package digits

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// ReadUSPS reads the USPS text format (one sample per line: the digit, then
// 256 values in [−1, 1] of a 16×16 image, −1 background), raw or gzip, and
// maps values to grey levels 0–255.
func ReadUSPS(path string) (*Images, error) {
	return readPath(path, readUSPS)
}

// readUSPS reads the USPS text format from r; errors name the file as path.
func readUSPS(r io.Reader, path string) (*Images, error) {
	img := &Images{H: 16, W: 16}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<16)
	for line := 1; sc.Scan(); line++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) != 257 {
			return nil, fmt.Errorf("%s: line %d: %d fields, want 257 (label and 16×16 values)", path, line, len(f))
		}
		d, err := strconv.ParseFloat(f[0], 64)
		if err != nil || d != math.Trunc(d) || d < 0 || d > 9 {
			return nil, fmt.Errorf("%s: line %d: label %q is not a digit 0–9", path, line, f[0])
		}
		for j, s := range f[1:] {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || !(v >= -1 && v <= 1) { // NaN too
				return nil, fmt.Errorf("%s: line %d, value %d: %q is not in [-1, 1]", path, line, j+1, s)
			}
			img.Pixels = append(img.Pixels, uint8(math.Round((v+1)*127.5)))
		}
		img.Labels = append(img.Labels, int(d))
		img.N++
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if img.N == 0 {
		return nil, fmt.Errorf("%s: no samples", path)
	}
	return img, nil
}
