// Package autograd is a minimal reverse-mode automatic differentiation over
// tensor.Tensor.
//
// A Var holds a value, its gradient and, when it was computed from variables
// that require gradients, the op that made it with a backward rule. Backward
// walks the graph in reverse topological order and accumulates gradients into
// the leaves. Only primitive ops (one per Op, recorded with record) carry
// backward rules; composite ops (Sub, Mean, LogSumExp, …) are written with
// primitives and get their gradients for free.
//
// The gradient table. Every primitive is declared with def in gradients.go,
// beside its backward rule and a one-line statement of its math (mul:
// y = a·b; ∂a = (g·b)↓, ∂b = (g·a)↓): a reader finds every gradient there,
// and the forward functions in the other files only compute the value and
// record it with its rule. Adding an elementwise op is a new tensor
// function, a def and a rule there, a forward function here, and a case in
// package gradcase's table (autograd/gradcase), which this package's tests
// run on the CPU and the CUDA backend's on its device.
//
// Adding a fused op. When a chain of primitives is too slow or holds too
// much memory, write it as one primitive on tensor's kernel mechanism
// (tensor.Kernel; the soft-binning ops in softbin.go are the example):
//  1. in package tensor, declare a forward and a backward kernel with
//     tensor.NewKernel, each with its attribute type, and write the
//     exported functions that check shapes, allocate the outputs and call
//     the body that tensor.Lookup finds for the device — or, when there is
//     none, the composed version (tensor ops);
//  2. write the CPU bodies as loops over host slices (parallelFor for large
//     inputs) and register them for CPU[float32] and CPU[float64];
//  3. test every body against the composed version in float64 (to
//     rounding) and float32;
//  4. here, declare the op with def in gradients.go beside a rule that
//     calls the backward kernel, write the forward function that records
//     the forward kernel's value with that rule, and add a case to
//     gradcase's table (the tests fail for an op without one);
//  5. a backend that has faster bodies registers them with tensor.Register
//     for its device when it is set up.
//
// Every exported function returning a *Var is checked against float64 central
// differences by Check in this package's tests, on gradcase's cases; a test
// fails for any such function that has no case there, and for a primitive
// of the gradient table that no case reaches.
//
// Errors follow package tensor's policy: operands that do not fit an op are
// a programming error and panic, from the tensor op the forward pass calls,
// with a *tensor.ShapeError or *tensor.DeviceError naming the op and the
// shapes; Backward panics with a *tensor.ShapeError on a non-scalar
// output and with a *tensor.ArgumentError on a graph without parameters.
package autograd
