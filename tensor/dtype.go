package tensor

import (
	"unsafe"

	"golang.org/x/exp/constraints"
)

// Float is the element type of a tensor: float32 or float64.
type Float interface {
	constraints.Float
}

// DType names the element type T, "float32" or "float64".
func DType[T Float]() string {
	var z T
	switch any(z).(type) {
	case float32:
		return "float32"
	default:
		return "float64"
	}
}

// sizeOf is the size of a T in bytes.
func sizeOf[T Float]() int {
	var z T
	return int(unsafe.Sizeof(z))
}
