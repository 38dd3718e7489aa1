// Package nn holds neural-network layers, models and losses built on autograd.
//
// A Module maps a batch to a batch and lists its trainable parameters. Layers
// follow PyTorch's conventions (Linear weights are [out, in], default
// initialisation U(−1/√fan_in, 1/√fan_in)), so results can be compared with
// reference code; every random draw comes from an explicit *rand.Rand.
//
// The models (NewLeNet5, NewResNet20, NewDenseNet40) are Classifiers with a
// main and an auxiliary head. Save and Load keep a model's State, its
// parameters and batch-normalisation statistics, in a checksummed binary file.
package nn
