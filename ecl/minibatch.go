package ecl

import (
	"fmt"
	"math"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

// Reduction says how the mini-batch loss combines samples.
type Reduction int

const (
	// Sum adds over samples, as the reference code does (the loss grows
	// with the batch size).
	Sum Reduction = iota
	// Mean divides each domain's sum by its batch size.
	Mean
)

// Config holds the settings of the ECL estimators. The zero value of each
// field means the reference default, except Input: the reference code
// detects probabilities (InputDetect), which reads each batch on the host,
// while the zero value takes them as given.
type Config struct {
	Paradigm Paradigm
	Classes  int     // K, required
	Bins     int     // B (default 15); canonical uses the simplex anchors built for B
	Tau      float64 // soft-binning temperature (default −1/(ln 0.9·B²), B the number of anchors)
	NProx    int     // proximal iterations per step (default 5)
	EMA      float64 // weight of the new value in the cache update (default 0.9)
	Skip     float64 // minimum soft count of a bin (default 2⁻²³)
	Reduce   Reduction
	Input    Input // what the main head's outputs are (default probabilities)
}

// ConfigError is a Config setting the estimators cannot use, returned by
// Config.Validate and by every constructor and estimator that takes a
// Config, before any work.
type ConfigError struct {
	Field  string // the Config field, as spelled there
	Value  any    // its value, defaults applied
	Reason string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("ecl: Config.%s %v: %s", e.Field, e.Value, e.Reason)
}

func (c Config) withDefaults() Config {
	if c.Bins == 0 {
		c.Bins = 15
	}
	if c.NProx == 0 {
		c.NProx = 5
	}
	if c.EMA == 0 {
		c.EMA = 0.9
	}
	if c.Skip == 0 {
		c.Skip = SkipThreshold
	}
	return c
}

// Validate reports the first setting of c, with defaults applied, that the
// estimators cannot use, as a *ConfigError.
func (c Config) Validate() error {
	_, err := c.layout()
	return err
}

// layout checks c with its defaults and returns the shapes of its paradigm.
func (c Config) layout() (layout, error) {
	c = c.withDefaults()
	l, err := newLayout(c.Paradigm, c.Classes, c.Bins, c.Tau)
	switch {
	case err != nil:
		return l, err
	case c.NProx < 1:
		return l, &ConfigError{"NProx", c.NProx, "need at least 1"}
	case !(c.EMA > 0 && c.EMA <= 1):
		return l, &ConfigError{"EMA", c.EMA, "must be in (0, 1]"}
	case !(c.Skip >= 0):
		return l, &ConfigError{"Skip", c.Skip, "must be at least 0"}
	case c.Reduce != Sum && c.Reduce != Mean:
		return l, &ConfigError{"Reduce", c.Reduce, "unknown"}
	case c.Input < InputProbs || c.Input > InputDetect:
		return l, &ConfigError{"Input", c.Input, "unknown"}
	}
	return l, nil
}

// MiniBatch is the trainable mini-batch ECL (Algorithm 1) with its cached
// auxiliary variables u_s, u_t [G, B, D]. It is not safe for concurrent use.
type MiniBatch struct {
	cfg    Config
	l      layout
	us, ut []float64
	// Skipped counts, after each Loss call, the bins skipped for too small a
	// soft count.
	Skipped int
}

// NewMiniBatch checks cfg (a *ConfigError if it is unusable) and returns
// the loss with zero caches.
func NewMiniBatch(cfg Config) (*MiniBatch, error) {
	l, err := cfg.layout()
	if err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	size := l.g * l.b * l.d
	return &MiniBatch{cfg: cfg, l: l, us: make([]float64, size), ut: make([]float64, size)}, nil
}

// Bins is the number of bins actually used (the number of simplex anchors for
// canonical).
func (mb *MiniBatch) Bins() int { return mb.l.b }

// Tau is the soft-binning temperature in use.
func (mb *MiniBatch) Tau() float64 { return mb.l.tau }

// Cache returns copies of the cached auxiliary variables u_s and u_t,
// row-major [G, B, D].
func (mb *MiniBatch) Cache() (us, ut []float64) {
	return append([]float64(nil), mb.us...), append([]float64(nil), mb.ut...)
}

// MiniBatchLoss computes the mini-batch ECL of one source and one target
// batch and updates mb's caches. srcProbs, tgtProbs are the main head's
// outputs [N, K], probabilities or logits as the Config's Input says;
// srcAux, tgtAux the auxiliary head's probabilities
// ([N] or [N, 1] P(correct) for top-label, [N, K] otherwise). Gradients flow
// through the soft assignments and through p; the auxiliary variables are
// constants. On a device other than the CPU a call copies to the host once
// (both domains' bin statistics, for the proximal step) and uploads one
// tensor (the fixed-u coefficients).
func MiniBatchLoss[T tensor.Float](mb *MiniBatch, srcProbs, tgtProbs, srcAux, tgtAux *autograd.Var[T]) *autograd.Var[T] {
	l := mb.l
	srcProbs, tgtProbs = Probabilities(mb.cfg.Input, srcProbs), Probabilities(mb.cfg.Input, tgtProbs)
	ss, st := binStats(l, srcProbs, srcAux), binStats(l, tgtProbs, tgtAux)
	ns, ms, nt, mt := downloadStats(l, ss.Value, st.Value)
	us, ut, keep := mb.proximal(ns, ms, nt, mt)
	return fixedULoss(l, mb.cfg.Reduce, ss, st, srcProbs.Shape()[0], tgtProbs.Shape()[0], us, ut, keep)
}

// fixedULoss is the loss of step 4 with the auxiliary variables u_s, u_t
// [G, B, D] and the mask of kept bins [G, B] held constant:
// Σ_i Σ_{g,j} keep_gj·ω_igj·‖u_gj − p_ig‖² per domain (of rows samples),
// divided by K except for top-label. With ‖u − p‖² = ‖u‖² − 2u·p + ‖p‖² it
// is Σ_{g,j} keep_gj·(‖u_gj‖²·n_gj − 2u_gj·m_gj + q_gj) on each domain's bin
// statistics ss, st [G, B, D+2] (binStats). Both domains' coefficients go
// to the device in one upload.
func fixedULoss[T tensor.Float](l layout, red Reduction, ss, st *autograd.Var[T], srcRows, tgtRows int, us, ut, keep []float64) *autograd.Var[T] {
	size := l.g * l.b * (l.d + 2)
	c := make([]float64, 2*size) // per domain, the coefficients of n, m and q
	for dom, u := range [][]float64{us, ut} {
		for gj, k := range keep {
			if k == 0 {
				continue
			}
			cj, uj := c[dom*size+gj*(l.d+2):dom*size+(gj+1)*(l.d+2)], u[gj*l.d:(gj+1)*l.d]
			for d, v := range uj {
				cj[0] += v * v
				cj[1+d] = -2 * v
			}
			cj[l.d+1] = 1
		}
	}
	coef := constOn(ss.Value.Device(), c, 2, l.g, l.b, l.d+2)
	term := func(s *autograd.Var[T], dom, rows int) *autograd.Var[T] {
		sum := autograd.SumAll(autograd.Mul(s, autograd.Reshape(autograd.Narrow(coef, 0, dom, 1), l.g, l.b, l.d+2)))
		if red == Mean {
			sum = autograd.Scale(sum, 1/T(max(rows, 1)))
		}
		return sum
	}
	loss := autograd.Add(term(ss, 0, srcRows), term(st, 1, tgtRows))
	if l.paradigm != TopLabel {
		loss = autograd.Scale(loss, 1/T(l.k))
	}
	return loss
}

// proximal runs the soft-thresholding iterations of every bin from the cached
// u_t, updates the caches by the moving average and returns the u used by
// the loss and a 0/1 mask of the bins kept. The bins are independent: they
// run over the cores (canonical at K = 1,000 has 10⁶ values).
func (mb *MiniBatch) proximal(ns, ms, nt, mt []float64) (us, ut, keep []float64) {
	l, c := mb.l, mb.cfg
	us, ut = make([]float64, len(mb.us)), make([]float64, len(mb.ut))
	keep = make([]float64, l.g*l.b)
	totals := make([]float64, l.g)
	for g := range totals {
		for j := 0; j < l.b; j++ {
			totals[g] += nt[g*l.b+j]
		}
	}
	tensor.ParallelFor(l.g*l.b, 4*c.NProx*l.d+8, func(lo, hi int) {
		for gj := lo; gj < hi; gj++ {
			if ns[gj] < c.Skip || nt[gj] < c.Skip {
				continue
			}
			keep[gj] = 1
			w := nt[gj] / (totals[gj/l.b] + SkipThreshold)
			s, t := us[gj*l.d:(gj+1)*l.d], ut[gj*l.d:(gj+1)*l.d]
			copy(t, mb.ut[gj*l.d:(gj+1)*l.d])
			for range c.NProx {
				for d := range s {
					s[d] = t[d] + shrink(ms[gj*l.d+d]/ns[gj]-t[d], w/(2*ns[gj]))
				}
				for d := range t {
					t[d] = s[d] + shrink(mt[gj*l.d+d]/nt[gj]-s[d], w/(2*nt[gj]))
				}
			}
			for d := range s {
				i := gj*l.d + d
				mb.us[i] = (1-c.EMA)*mb.us[i] + c.EMA*s[d]
				mb.ut[i] = (1-c.EMA)*mb.ut[i] + c.EMA*t[d]
			}
		}
	})
	mb.Skipped = 0
	for _, k := range keep {
		if k == 0 {
			mb.Skipped++
		}
	}
	return us, ut, keep
}

// shrink is the soft-thresholding operator sign(v)·max(|v| − θ, 0).
func shrink(v, theta float64) float64 {
	return math.Copysign(max(math.Abs(v)-theta, 0), v)
}
