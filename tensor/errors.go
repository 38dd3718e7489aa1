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

// ErrArgument is what every *ArgumentError wraps.
var ErrArgument = errors.New("tensor: argument out of the op's domain")

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

// ArgumentError is the value an op panics with when an argument other than
// a shape or a device pairing does not fit it: a scalar out of its domain
// (bounds in the wrong order, a non-positive temperature or step), or a
// call the op cannot serve (a CPU-only kernel on another device, nested
// arenas, a kernel declared twice).
type ArgumentError struct {
	Op     string // the op, as "tensor.Clamp"
	Detail string // what is wrong, naming the values
}

func (e *ArgumentError) Error() string { return e.Op + ": " + e.Detail }

// Unwrap returns ErrArgument.
func (e *ArgumentError) Unwrap() error { return ErrArgument }

// argumentError is the *ArgumentError of tensor.op with the formatted detail.
func argumentError(op, format string, args ...any) *ArgumentError {
	return &ArgumentError{Op: "tensor." + op, Detail: fmt.Sprintf(format, args...)}
}

// shapeError is the *ShapeError of tensor.op with the formatted detail and
// copies of the shapes.
func shapeError(op string, shapes [][]int, format string, args ...any) *ShapeError {
	cp := make([][]int, len(shapes))
	for i, s := range shapes {
		cp[i] = slices.Clone(s)
	}
	return &ShapeError{Op: "tensor." + op, Shapes: cp, Detail: fmt.Sprintf(format, args...)}
}
