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
// Programming errors (mismatched shapes, an axis out of range, tensors on two
// devices) panic with a message naming the op and the shapes.
package tensor
