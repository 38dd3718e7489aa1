// Package nn holds neural-network layers, models and losses built on autograd.
//
// A Module maps a batch to a batch and lists its trainable parameters and its
// State. Layers follow PyTorch's conventions (Linear weights are [out, in],
// default initialisation U(−1/√fan_in, 1/√fan_in)), so results can be
// compared with reference code; every random draw comes from an explicit
// *rand.Rand.
//
// # Named state
//
// Parameters and buffers are named where they are created, as with
// candle-nn's VarBuilder: a layer is made in a Vars view (NewLinear(vb,
// …) creates vb's "weight" and "bias"), a model hands its parts views one
// level down (vb.Sub("conv1"), Sequential.Next for an index), and a module
// gets Params, State and SetTraining from the store instead of listing
// them. The names are PyTorch's state_dict names: the feature extractors
// LeNet5, ResNet20 and DenseNet40 name their layers as bench/peer/train.py's
// PyTorch models do, and the heads a caller puts on them are "main" (and
// "aux" for ecl.Classifier, which puts both).
//
// # Files
//
// Save and Load keep a model's State, its parameters and batch-normalisation
// statistics, in a checksummed binary file of this package. SaveSafetensors
// and LoadSafetensors use the safetensors format instead, matching tensors
// by name, so that a state_dict saved from the same PyTorch model (with
// safetensors.torch.save_file) loads here, and the other way round.
// LoadPyTorch reads torch.save's own .pth files (a state_dict or a
// checkpoint) without Python, so that torchvision's published weights load
// into ResNet (resnet50, resnet152, wide_resnet50_2), DenseNet
// (densenet121, densenet161) and ViT (vit_b_16, vit_l_16), built under
// torchvision's state_dict names (docs/pretrained.md).
//
// # Errors
//
// Loading state returns errors (a file, a name or a shape that does not
// fit, named); constructors and losses given arguments out of their domain
// panic with tensor's typed values, *tensor.ArgumentError (a dropout
// probability outside [0, 1)) or *tensor.ShapeError (log-probabilities that
// do not fit their labels), naming the function.
package nn
