package report

import (
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/experiment"
)

// Diff is the paired per-seed difference B − A of one metric in one shift
// and setup: its mean over the Seeds both methods ran and a 95% bootstrap
// interval [Lo, Hi], as fractions (NLL as is).
type Diff struct {
	Shift               experiment.ShiftID
	Setup, A, B, Metric string
	Seeds               int
	Mean, Lo, Hi        float64
}

// Compare sets r.Diffs to the differences B − A of methods a and b in
// r.Metrics (Uncal, ECL-toplabel, …), for every shift and setup where both
// have rows, resampling seeds reps times from seed.
func (r *Report) Compare(a, b string, reps int, seed uint64) error {
	diffs, err := pairedDiffs(r.Results, a, b, r.Metrics, reps, seed)
	if err != nil {
		return err
	}
	r.Diffs = diffs
	return nil
}

// pairedDiffs computes the differences B − A for every shift and setup
// where both methods have rows, resampling seeds reps times.
func pairedDiffs(rs []experiment.Result, a, b string, names []string, reps int, seed uint64) ([]Diff, error) {
	type key struct {
		shift experiment.ShiftID
		setup string
	}
	var order []key
	pairs := map[key]map[uint64][2]*experiment.Result{}
	ma, mb := experiment.ParseMethodID(a), experiment.ParseMethodID(b)
	var have []string
	for _, r := range rs {
		if name := r.Method.String(); !slices.Contains(have, name) {
			have = append(have, name)
		}
	}
	for _, m := range []experiment.MethodID{ma, mb} {
		if !slices.Contains(have, m.String()) {
			return nil, fmt.Errorf("-compare: no method %s in these runs (want two of %s)", m, strings.Join(have, ", "))
		}
	}
	for i := range rs {
		r := &rs[i]
		if r.Method != ma && r.Method != mb {
			continue
		}
		k := key{r.Shift, r.Setup}
		if pairs[k] == nil {
			pairs[k] = map[uint64][2]*experiment.Result{}
			order = append(order, k)
		}
		p := pairs[k][r.Seed]
		if r.Method == ma {
			p[0] = r
		} else {
			p[1] = r
		}
		pairs[k][r.Seed] = p
	}
	var out []Diff
	for _, k := range order {
		var seeds []uint64
		for s, p := range pairs[k] {
			if p[0] != nil && p[1] != nil {
				seeds = append(seeds, s)
			}
		}
		if len(seeds) == 0 {
			continue
		}
		slices.Sort(seeds)
		for _, m := range names {
			va, vb := make([]float64, len(seeds)), make([]float64, len(seeds))
			for i, s := range seeds {
				p := pairs[k][s]
				va[i], vb[i] = p[0].Target.Get(m), p[1].Target.Get(m)
			}
			mean, lo, hi := metrics.PairedDifference(va, vb, reps, 0.95, rand.New(rand.NewPCG(seed, 0xd1ff)))
			out = append(out, Diff{Shift: k.shift, Setup: k.setup, A: a, B: b, Metric: m, Seeds: len(seeds), Mean: mean, Lo: lo, Hi: hi})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-compare: no seed of the same shift and setup has both %s and %s", a, b)
	}
	return out, nil
}

// DiffText writes the paired differences of Compare, one a line.
func (r Report) DiffText(w io.Writer) error {
	var b strings.Builder
	for _, d := range r.Diffs {
		fmt.Fprintf(&b, "%s − %s, %s, %s: %+.3f [%+.3f, %+.3f] (%d seeds, 95%% bootstrap)\n", d.B, d.A, d.Shift, d.Metric, scale(d.Metric)*d.Mean, scale(d.Metric)*d.Lo, scale(d.Metric)*d.Hi, d.Seeds)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
