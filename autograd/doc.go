// Package autograd is a minimal reverse-mode automatic differentiation over
// tensor.Tensor.
//
// A Var holds a value, its gradient and, when it was computed from variables
// that require gradients, the op that made it with a backward rule. Backward
// walks the graph in reverse topological order and accumulates gradients into
// the leaves. Only primitive ops (one per Op, recorded with record) carry
// backward rules; composite ops (Sub, Mean, Softmax, …) are written with
// primitives and get their gradients for free.
//
// Every exported function returning a *Var is checked against float64 central
// differences by Check in this package's tests; a test fails for any such
// function that has no gradient case.
package autograd
