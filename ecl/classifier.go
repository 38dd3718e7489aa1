package ecl

import (
	"math/rand/v2"
	"slices"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/nn"
	"github.com/ecl-go/ecl/tensor"
)

// Classifier is a backbone with two heads of the same structure: the main
// head gives the class logits, the auxiliary head estimates P(Y|X) (or
// P(correct) for top-label ECL) from the same features.
type Classifier[T tensor.Float] struct {
	Backbone  nn.Module[T]
	Main, Aux nn.Module[T]
}

// Forward is the main head's logits.
func (c *Classifier[T]) Forward(x *autograd.Var[T]) *autograd.Var[T] {
	return c.Main.Forward(c.Backbone.Forward(x))
}

// AuxForward is the auxiliary head's output on the backbone's features,
// detached: the backbone stays frozen while the auxiliary head trains.
func (c *Classifier[T]) AuxForward(x *autograd.Var[T]) *autograd.Var[T] {
	return c.Aux.Forward(c.Backbone.Forward(x).Detach())
}

// Params lists the backbone's and the main head's parameters (not the
// auxiliary head's, which trains on its own).
func (c *Classifier[T]) Params() []*autograd.Var[T] {
	return append(c.Backbone.Params(), c.Main.Params()...)
}

// SetTraining sets the mode of all three parts.
func (c *Classifier[T]) SetTraining(training bool) {
	c.Backbone.SetTraining(training)
	c.Main.SetTraining(training)
	c.Aux.SetTraining(training)
}

// State is the state of the backbone and of both heads, the auxiliary one
// included, under the names their Vars gave them.
func (c *Classifier[T]) State() []nn.Named[T] {
	return slices.Concat(c.Backbone.State(), c.Main.State(), c.Aux.State())
}

// NewClassifier creates in a new store the backbone made by backbone, of
// the given feature width, then a linear main head features→classes named
// main and a linear auxiliary head features→auxOut named aux, drawn from
// rng in that order. With nn.LeNet5, nn.ResNet20 or nn.DenseNet40 the state
// has the names of bench/peer/train.py's PyTorch models built with the aux
// head.
func NewClassifier[T tensor.Float](rng *rand.Rand, backbone func(nn.Vars[T], *rand.Rand) (nn.Sequential[T], int), classes, auxOut int) *Classifier[T] {
	vb := nn.NewVars[T]()
	b, features := backbone(vb, rng)
	return &Classifier[T]{
		Backbone: b,
		Main:     nn.NewLinear(vb.Sub("main"), rng, features, classes),
		Aux:      nn.NewLinear(vb.Sub("aux"), rng, features, auxOut),
	}
}

// NewMLPClassifier is the simulation's network: backbone in→hidden with
// ReLU (backbone.0), a main head hidden→classes and an auxiliary head
// hidden→auxOut.
func NewMLPClassifier[T tensor.Float](rng *rand.Rand, in, hidden, classes, auxOut int) *Classifier[T] {
	return NewClassifier(rng, func(vb nn.Vars[T], rng *rand.Rand) (nn.Sequential[T], int) {
		return append(nn.MLP(vb.Sub("backbone"), rng, in, hidden), nn.ReLU[T]()), hidden
	}, classes, auxOut)
}
