// Package gradcase is the one table of float64 gradient-check cases of
// package autograd: for every differentiable op, inputs made on a given
// device (broadcasting and non-contiguous views among them) and the
// function of them that autograd.Check compares with central differences.
//
// Autograd's tests run every case on the CPU, and the CUDA backend's
// device tests (kernels/cuda, build tag cuda) run the same cases with every
// tensor on the device, so an op gets one case list for both. Autograd's
// tests also fail for an exported function returning a *Var that has no
// case here, and for a primitive of its gradient table that no case
// reaches: adding an op to autograd means adding its case to this table.
//
// Cases returns the table; Case.Check runs one case on a device.
package gradcase
