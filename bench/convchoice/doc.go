// Command convchoice measures the CPU paths of the 3×3, stride-1
// convolutions of ResNet-20, ResNet-50, Wide ResNet-50-2, DenseNet-40 and
// DenseNet-121 (bench.ConvLayers) and writes tensor's table of paths:
//
//	go run ./bench/convchoice [-rounds 7] [-dtype float32,float64] [-run REGEXP] [-o tensor/convchoice.txt]
//
// For each layer and dtype it times the forward pass, the input gradient
// and the weight gradient on the direct (gather), im2col, F(4×4, 3×3) and
// F(2×2, 3×3) Winograd paths, alternating the paths within each round
// (bench.ConvTimes), prints the medians in ms, and writes to -o the
// fastest path of each pass (tensor.ConvChoice lines, with a header
// naming the command, the date, GOMAXPROCS and the rounds). Run it on an
// otherwise idle machine; Wide ResNet-50-2's largest layers take seconds
// a call. -run selects layers by "Net C→O Size", e.g. -run 'ResNet-20'.
package main
