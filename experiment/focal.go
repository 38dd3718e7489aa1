package experiment

import (
	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/datasets"
	"github.com/ecl-go/ecl/tensor"
)

// focalGamma is the focal loss's γ, Lin et al.'s choice (2017); Mukhoti
// et al. (2020) study the loss as a train-time calibration method.
const focalGamma = 2

// focalLoss is the loss of the "focal" method (registry): the focal loss
// of the source logits ls against the source labels, in place of the
// cross-entropy; the target batch is not used.
func focalLoss[T tensor.Float](ls, _ *autograd.Var[T], s, _ datasets.Split[T]) *autograd.Var[T] {
	return focal(ls, s.Y, focalGamma)
}

// focal is the focal loss of logits [N, K] against labels (Lin et al.,
// 2017): the mean over the rows of −(1 − p_y)^γ · log p_y, p_y the softmax
// probability of the row's label. It is the cross-entropy at γ = 0; a
// larger γ weighs the confident rows down.
func focal[T tensor.Float](logits *autograd.Var[T], labels []int, gamma T) *autograd.Var[T] {
	logp := autograd.Gather(autograd.LogSoftmax(logits, 1), 1, labels, len(labels), 1)
	weight := autograd.PowScalar(autograd.Affine(autograd.Exp(logp), -1, 1), gamma)
	return autograd.Scale(autograd.MeanAll(autograd.Mul(weight, logp)), -1)
}
