package metrics

import "math"

// nllFloor is the smallest probability NLL takes the log of (float64
// machine epsilon, as scikit-learn's log_loss clips).
const nllFloor = 0x1p-52

// NLL returns the mean negative log-likelihood −(1/n) Σ log max(S_{y}, 2⁻⁵²).
func NLL(probs []float64, k int, labels []int) (float64, error) {
	n, err := validate("NLL", probs, k, labels, k)
	if err != nil {
		return 0, err
	}
	s := 0.0
	for i, y := range labels {
		s -= math.Log(max(probs[i*k+y], nllFloor))
	}
	return s / float64(n), nil
}

// Brier returns the multi-class Brier score Σ_k mean_n (S_nk − 1[y_n = k])²,
// in [0, 2].
func Brier(probs []float64, k int, labels []int) (float64, error) {
	n, err := validate("Brier", probs, k, labels, k)
	if err != nil {
		return 0, err
	}
	s := 0.0
	for i, p := range probs {
		d := p
		if labels[i/k] == i%k {
			d = p - 1
		}
		s += d * d
	}
	return s / float64(n), nil
}

// Accuracy returns the fraction of samples whose first most probable class is
// the label.
func Accuracy(probs []float64, k int, labels []int) (float64, error) {
	n, err := validate("Accuracy", probs, k, labels, k)
	if err != nil {
		return 0, err
	}
	hits := 0
	for i, y := range labels {
		if Argmax(probs[i*k:(i+1)*k]) == y {
			hits++
		}
	}
	return float64(hits) / float64(n), nil
}
