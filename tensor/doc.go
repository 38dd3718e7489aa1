// Package tensor holds dense n-dimensional arrays of float32 or float64 and the
// operations on them.
//
// A Tensor is a view: a shape, strides (in elements), an offset and a Buffer that
// lives on a Device. Views (Reshape, Transpose, Permute, Narrow, Expand) share the
// buffer and copy nothing; Contiguous and Clone copy. Operations check shapes and
// devices, compute NumPy broadcasting, allocate the result and hand the work to
// the Device, whose primitive set is the Device interface. CPU is the pure-Go
// implementation of that interface and the reference every other backend (such
// as kernels/cuda) is tested against.
//
// Fused kernels (Kernel) are operations beyond that primitive set: a named
// kernel has a CPU body, a version composed of tensor ops that runs on any
// other device and is the CPU body's tested reference, and bodies that
// backends register for their own devices (Register), so that neither this
// package nor autograd imports a backend. The soft-binning kernels of the
// ECL loss (SoftAssign, BinStats, SoftBinStats) are built this way; Kernels
// lists them all.
//
// # Adding an op
//
// An elementwise function or reduction is a new code of UnaryOp, BinaryOp or
// ReduceOp (device.go), its case in the CPU's switch (cpu_funcs.go) and in the CUDA
// kernel's (kernels/cuda/src/elementwise.cu or reduce.cu, whose codes come
// from src/ops.h: run go generate ./kernels/cuda, which regenerates the
// header and the PTX; a code the kernel's switch lacks traps), and a
// function here that calls the Device. Its gradient is one entry of
// autograd's gradient table (autograd/gradients.go: def registers the op
// beside its backward rule, and the gradient-check registry then asks for a
// float64 check of it). Anything that is not one elementwise pass or
// reduction is a fused Kernel instead: a CPU body, a composed reference, and
// device bodies registered by the backends.
//
// # Assembly
//
// The amd64 kernels are Go assembly (*_amd64.s, not built with -tags
// noasm, which leaves the pure-Go loops). Functions that exist for both
// float32 and float64 with the same instructions apart from the precision
// (relu_amd64.s, rows_amd64.s) are generated from one template each by
// internal/asmtwins (go generate ./tensor); a test fails when a committed
// file is not its template's output.
//
// # Errors
//
// Errors are returned where the caller can act on them (BroadcastShapes,
// a device that cannot be opened); an op has no error result, and operands
// it cannot take are a programming error, found before any work, that
// panics with a typed value naming the op and the shapes: a *ShapeError
// (shapes that do not broadcast or multiply, an axis or index out of range,
// a data length that does not fit a shape; it wraps ErrShape) or a
// *DeviceError (tensors on two devices; it wraps ErrDevice) or an
// *ArgumentError (any other argument out of the op's domain, such as
// Clamp's bounds in the wrong order or a soft-binning temperature ≤ 0, or a
// call the op cannot serve, such as a CPU-only kernel on another device; it
// wraps ErrArgument). The fused kernels (convolution, pooling, batch norm,
// dense blocks, soft binning, Adam) follow the same rule. A caller that
// must survive bad operands, such as a test or a server, recovers the
// value and inspects it with errors.As. Only broken internal invariants
// (an op code a device does not know) panic with a plain string.
package tensor

//go:generate go run ./internal/asmtwins
