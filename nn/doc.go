// Package nn holds neural-network layers, models and losses built on autograd.
//
// A Module maps a batch to a batch and lists its trainable parameters. Layers
// follow PyTorch's conventions (Linear weights are [out, in], default
// initialisation U(−1/√fan_in, 1/√fan_in)), so results can be compared with
// reference code; every random draw comes from an explicit *rand.Rand.
//
// The feature extractors of LeNet5, ResNet20 and DenseNet40 take the
// head a caller puts on them (ecl.Classifier puts two). Save and Load keep a model's State, its
// parameters and batch-normalisation statistics, in a checksummed binary file.
package nn
