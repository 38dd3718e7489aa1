package digits

import (
	"math"
	"testing"
)

func TestInputResizes(t *testing.T) {
	// Same size: exact copy scaled to [0, 1], in all three channels.
	im := &Images{N: 1, H: 2, W: 2, Pixels: []uint8{0, 255, 51, 102}, Labels: []int{3}}
	x, err := Input(im, 2)
	if err != nil {
		t.Fatal(err)
	}
	d := x.Data()
	for c := range 3 {
		for i, p := range im.Pixels {
			if math.Abs(float64(d[c*4+i])-float64(p)/255) > 1e-7 {
				t.Fatalf("channel %d pixel %d = %v", c, i, d[c*4+i])
			}
		}
	}
	// Upscaling 2×2 → 4×4 with half-pixel centres: output x = 1 samples
	// input 0.25, so its value is 0.75·a + 0.25·b; corners keep the corner
	// values (clamped).
	im = &Images{N: 1, H: 2, W: 2, Pixels: []uint8{0, 255, 0, 255}, Labels: []int{0}}
	x, _ = Input(im, 4)
	row := x.Data()[:4]
	want := []float32{0, 0.25, 0.75, 1}
	for i := range want {
		if math.Abs(float64(row[i]-want[i])) > 1e-6 {
			t.Fatalf("upscaled row %v, want %v", row, want)
		}
	}
	// A constant image stays constant at any size.
	im = &Images{N: 2, H: 16, W: 16, Pixels: make([]uint8, 512), Labels: []int{1, 2}}
	for i := range im.Pixels {
		im.Pixels[i] = 128
	}
	x, _ = Input(im, 28)
	for _, v := range x.Data() {
		if math.Abs(float64(v)-128.0/255) > 1e-6 {
			t.Fatalf("constant image became %v", v)
		}
	}
	if s := x.Shape(); s[0] != 2 || s[1] != 3 || s[2] != 28 || s[3] != 28 {
		t.Errorf("shape %v", s)
	}
	if _, err := Input(&Images{N: 1, H: 2, W: 2, Pixels: []uint8{1}}, 4); err == nil {
		t.Error("inconsistent image accepted")
	}
}
