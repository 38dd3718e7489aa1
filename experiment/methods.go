package experiment

import (
	"fmt"
	"math/rand/v2"

	"github.com/ecl-go/ecl/tensor"
)

// Method is a baseline the studies know, in one place: its key in
// -methods, its row's name, its kind and how it is fitted on an arm (a base
// model with its data). Each family of methods registers its own in its
// file (posthoc.go, traintime.go); adding a method is one registration and
// its fit function there.
type Method struct {
	Key, Name string
	// PostHoc methods recalibrate the base model's outputs; the others
	// train a copy of it. The post-hoc methods of a study run first, in
	// order, sharing one random stream.
	PostHoc bool
	// fit32 and fit64 are the fit function instantiated for the two
	// element types (the digits and the simulation study): it returns the
	// method's probabilities on the arm's evaluated source and target.
	fit32 func(a *arm[float32], rng *rand.Rand) (src, tgt []float64, err error)
	fit64 func(a *arm[float64], rng *rand.Rand) (src, tgt []float64, err error)
}

// registry holds the methods in registration order.
var registry []Method

// Methods lists the keys of the registered methods, in registration order.
var Methods []string

// register adds m to the registry; a key registered twice is a
// programming error.
func register(m Method) {
	if _, ok := lookupMethod(m.Key); ok {
		panic(fmt.Sprintf("experiment: method %q registered twice", m.Key))
	}
	registry = append(registry, m)
	Methods = append(Methods, m.Key)
}

// lookupMethod is the method registered under key.
func lookupMethod(key string) (Method, bool) {
	for _, m := range registry {
		if m.Key == key {
			return m, true
		}
	}
	return Method{}, false
}

// fitMethod runs m's fit function for a's element type.
func fitMethod[T tensor.Float](m Method, a *arm[T], rng *rand.Rand) (src, tgt []float64, err error) {
	switch a := any(a).(type) {
	case *arm[float32]:
		return m.fit32(a, rng)
	case *arm[float64]:
		return m.fit64(a, rng)
	}
	panic("experiment: arm of an unknown element type")
}
