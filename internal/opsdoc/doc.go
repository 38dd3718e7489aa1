// Package opsdoc makes docs/ops.md, the table that follows each op across
// the layers: autograd's primitive and its backward rule, the tensor
// kernels, their CPU and CUDA bodies and the src/*.cu kernels launched,
// and the tests of each. It reads the sources with go/parser (tensor,
// autograd, autograd/gradcase, optim, kernels/cuda; no package is
// imported), so it sits beside the layers rather than in one of them.
// Build makes the Table, Markdown renders it and Write writes the file;
// its test fails when the committed file is stale or a name breaks the
// rule of one name per op (Table.Mismatches).
//
//	go run ./internal/opsdoc/gen   # from the module root
package opsdoc
