package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/experiment"
)

// diff is the paired per-seed difference B − A of one metric in one shift
// and setup: its mean over the seeds both methods ran and a 95% bootstrap
// interval.
type diff struct {
	shift               experiment.ShiftID
	setup, a, b, metric string
	seeds               int
	mean, lo, hi        float64
}

// pairedDiffs computes the differences B − A for every shift and setup
// where both methods have rows, resampling seeds reps times.
func pairedDiffs(rs []experiment.Result, a, b string, names []string, reps int, seed uint64) ([]diff, error) {
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
	var out []diff
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
			out = append(out, diff{shift: k.shift, setup: k.setup, a: a, b: b, metric: m, seeds: len(seeds), mean: mean, lo: lo, hi: hi})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-compare: no seed of the same shift and setup has both %s and %s", a, b)
	}
	return out, nil
}

// diffText writes the paired differences of -compare, one a line.
func (r report) diffText(w io.Writer) error {
	var b strings.Builder
	for _, d := range r.diffs {
		fmt.Fprintf(&b, "%s − %s, %s, %s: %+.3f [%+.3f, %+.3f] (%d seeds, 95%% bootstrap)\n", d.b, d.a, d.shift, d.metric, scale(d.metric)*d.mean, scale(d.metric)*d.lo, scale(d.metric)*d.hi, d.seeds)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
