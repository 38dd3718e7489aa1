package tensor

import (
	"errors"
	"fmt"
	"slices"
)

// ErrShape is what every *ShapeError wraps: errors.Is(err, ErrShape).
var ErrShape = errors.New("tensor: operands do not fit")

// ErrDevice is what every *DeviceError wraps.
var ErrDevice = errors.New("tensor: operands on different devices")

// ShapeError is the value an op panics with when its operands' shapes, an
// axis or an index do not fit it: a programming error, found before any
// work.
type ShapeError struct {
	Op     string  // the op, as "tensor.MatMul"
	Shapes [][]int // the shapes involved, in the op's argument order
	Detail string  // what is wrong, naming the shapes
}

func (e *ShapeError) Error() string { return e.Op + ": " + e.Detail }

// Unwrap returns ErrShape.
func (e *ShapeError) Unwrap() error { return ErrShape }

// DeviceError is the value an op panics with when its operands live on
// different devices (tensors never move implicitly: see To).
type DeviceError struct {
	Op      string // the op, as "tensor.Add"
	Devices [2]string
}

func (e *DeviceError) Error() string {
	return fmt.Sprintf("%s: tensors on different devices (%s and %s)", e.Op, e.Devices[0], e.Devices[1])
}

// Unwrap returns ErrDevice.
func (e *DeviceError) Unwrap() error { return ErrDevice }

// shapeError is the *ShapeError of tensor.op with the formatted detail and
// copies of the shapes.
func shapeError(op string, shapes [][]int, format string, args ...any) *ShapeError {
	cp := make([][]int, len(shapes))
	for i, s := range shapes {
		cp[i] = slices.Clone(s)
	}
	return &ShapeError{Op: "tensor." + op, Shapes: cp, Detail: fmt.Sprintf(format, args...)}
}
