package calibrate

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// MinMemoryLimit is the least soft memory limit DefaultMemoryLimit
// proposes: below it the program's own heap (tables, bootstrap indices,
// diagrams) rather than the inputs sets what is live.
const MinMemoryLimit = 1 << 30

// InputBytes is the size of the run's input arrays as held in memory: the
// source, target and pseudo-target scores and the features, as float64.
func (c Config) InputBytes() int64 {
	n := len(c.Source.Logits) + len(c.Target.Logits) + len(c.SourceFeatures) + len(c.TargetFeatures)
	if c.Pseudo != nil {
		n += len(c.Pseudo.Logits)
	}
	return 8 * int64(n)
}

// DefaultMemoryLimit is the soft limit "ecl calibrate" gives Go's
// collector unless told otherwise: 2.6 times the input arrays' bytes
// (Config.InputBytes), at least MinMemoryLimit. Without a limit the
// collector lets the heap grow to twice what is live after the last
// collection; with one it collects as the heap reaches it, and the
// resident set is the limit plus what it does not hold back (the
// program's code, an array allocated as a collection starts), within three
// times the input. What is live stays below it: the inputs, one heavy
// method's fit (schedule) and one n × k array per running method.
func DefaultMemoryLimit(input int64) int64 {
	return max(input/5*13, MinMemoryLimit)
}

// ParseSize reads a size in bytes as GOMEMLIMIT writes it: a whole number
// with an optional unit B, KiB, MiB, GiB or TiB.
func ParseSize(s string) (int64, error) {
	num, mult := s, int64(1)
	for i, u := range []string{"KiB", "MiB", "GiB", "TiB"} {
		if strings.HasSuffix(s, u) {
			num, mult = strings.TrimSuffix(s, u), int64(1)<<(10*(i+1))
			break
		}
	}
	if mult == 1 {
		num = strings.TrimSuffix(s, "B")
	}
	v, err := strconv.ParseInt(num, 10, 64)
	if err != nil || v < 0 || v > math.MaxInt64/mult {
		return 0, fmt.Errorf("size %q: want a whole number of bytes ≥ 0 with an optional unit B, KiB, MiB, GiB or TiB", s)
	}
	return v * mult, nil
}
