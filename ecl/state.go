package ecl

import "fmt"

// State returns the sums the weight is computed from, for a training
// checkpoint.
func (a *AdaptiveWeight) State() [2]float64 { return [2]float64{a.sumCE, a.sum} }

// SetState restores sums State returned: the weight then goes on as the
// one State was taken from.
func (a *AdaptiveWeight) SetState(s [2]float64) { a.sumCE, a.sum = s[0], s[1] }

// SetCache restores caches that Cache returned for a loss of the same
// configuration, so that the next MiniBatchLoss goes on as it would have
// on the loss they were taken from.
func (mb *MiniBatch) SetCache(us, ut []float64) error {
	if len(us) != len(mb.us) || len(ut) != len(mb.ut) {
		return fmt.Errorf("ecl.MiniBatch.SetCache: caches of %d and %d values for a loss of %d", len(us), len(ut), len(mb.us))
	}
	copy(mb.us, us)
	copy(mb.ut, ut)
	return nil
}
