package digits

// ColorImages is a set of equally sized RGB images with labels.
type ColorImages struct {
	N, H, W int
	Pixels  []uint8 // N·3·H·W: per image, channel-major (R plane, G plane, B plane), rows top to bottom
	Labels  []int   // N digits 0–9
}
