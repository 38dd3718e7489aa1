// Package nn holds neural-network layers, models and losses built on autograd.
//
// A Module maps a batch to a batch and lists its trainable parameters. Layers
// follow PyTorch's conventions (Linear weights are [out, in], default
// initialisation U(−1/√fan_in, 1/√fan_in)), so results can be compared with
// reference code; every random draw comes from an explicit *rand.Rand.
package nn
