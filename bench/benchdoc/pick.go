package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// field is a parsed Pick.Field: the words from..to (numbered from 1 after a
// row's leading words), or, when unit is set, the word before that word.
type field struct {
	from, to int
	unit     string
}

func parseField(s string) (field, error) {
	if s == "" {
		return field{}, fmt.Errorf("no field")
	}
	if s[0] < '0' || s[0] > '9' {
		return field{unit: s}, nil
	}
	a, b, isRange := strings.Cut(s, "-")
	from, err1 := strconv.Atoi(a)
	to, err2 := from, error(nil)
	if isRange {
		to, err2 = strconv.Atoi(b)
	}
	if err1 != nil || err2 != nil || from < 1 || to < from {
		return field{}, fmt.Errorf("field %q: want N, N-M (from 1) or a unit word", s)
	}
	return field{from: from, to: to}, nil
}

// figure is a number read from a raw file, in its row's unit; text is the
// raw word when the number is shown as the file prints it.
type figure struct {
	v    float64
	text string
}

// String formats the figure as the table shows it.
func (f figure) String() string {
	if f.text != "" {
		return f.text
	}
	return format4(f.v)
}

// read finds the pick's numbers in the text of the raw file name and reduces
// them to one figure in unit.
func (p Pick) read(name, text, unit string) (figure, error) {
	fld, err := parseField(p.Field)
	if err != nil {
		return figure{}, err
	}
	var found []figure
	for n, line := range strings.Split(text, "\n") {
		words := strings.Fields(line)
		for _, row := range p.Rows {
			key := strings.Fields(row)
			if !hasPrefix(words, key) {
				continue
			}
			got, err := fld.take(words[len(key):])
			if err != nil {
				return figure{}, fmt.Errorf("%s:%d: %w", name, n+1, err)
			}
			found = append(found, got...)
		}
	}
	if len(found) == 0 {
		return figure{}, fmt.Errorf("%s: no line starts with %s", name, strings.Join(quoteAll(p.Rows), " or "))
	}
	f, err := reduce(found, p.Of)
	if err != nil {
		return figure{}, fmt.Errorf("%s: %w", name, err)
	}
	if p.Unit != "" && p.Unit != unit {
		f = figure{v: f.v * timeUnits[p.Unit] / timeUnits[unit]}
	}
	if !(f.v > 0) || math.IsInf(f.v, 0) {
		return figure{}, fmt.Errorf("%s: %s is not a positive figure", name, f)
	}
	return f, nil
}

// take returns the numbers the field names among a line's words after its
// row's leading words.
func (fld field) take(words []string) ([]figure, error) {
	from, to := fld.from, fld.to
	if fld.unit != "" {
		at := -1
		for i, w := range words {
			if w == fld.unit && i > 0 {
				at = i
				break
			}
		}
		if at < 0 {
			return nil, fmt.Errorf("no number before %q", fld.unit)
		}
		from, to = at, at
	}
	if to > len(words) {
		return nil, fmt.Errorf("field %d: the line has %d after its row", to, len(words))
	}
	var out []figure
	for _, w := range words[from-1 : to] {
		v, err := strconv.ParseFloat(w, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", w)
		}
		out = append(out, figure{v: v, text: w})
	}
	return out, nil
}

func reduce(fs []figure, of string) (figure, error) {
	switch of {
	case "":
		if len(fs) != 1 {
			return figure{}, fmt.Errorf(`%d numbers match; say "of": "mean", "median" or "min"`, len(fs))
		}
		return fs[0], nil
	case "min":
		m := fs[0]
		for _, f := range fs[1:] {
			if f.v < m.v {
				m = f
			}
		}
		return m, nil
	case "mean":
		if len(fs) == 1 {
			return fs[0], nil
		}
		s := 0.0
		for _, f := range fs {
			s += f.v
		}
		return figure{v: s / float64(len(fs))}, nil
	case "median":
		if len(fs) == 1 {
			return fs[0], nil
		}
		vs := make([]float64, len(fs))
		for i, f := range fs {
			vs[i] = f.v
		}
		slices.Sort(vs)
		h := len(vs) / 2
		if len(vs)%2 == 0 {
			return figure{v: (vs[h-1] + vs[h]) / 2}, nil
		}
		return figure{v: vs[h]}, nil
	}
	return figure{}, fmt.Errorf("of %q: want mean, median, min or nothing", of)
}

func hasPrefix(words, key []string) bool {
	if len(words) <= len(key) {
		return false
	}
	for i, k := range key {
		if words[i] != k {
			return false
		}
	}
	return true
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// timeUnits are the time units a row or a pick may name, in seconds.
var timeUnits = map[string]float64{"ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1}

func isTime(unit string) bool { _, ok := timeUnits[unit]; return ok }

func isRate(unit string) bool { return len(unit) > 2 && strings.HasSuffix(unit, "/s") }

// format4 prints v with four significant digits, without an exponent.
func format4(v float64) string {
	d := 3
	if v != 0 {
		d = 3 - int(math.Floor(math.Log10(math.Abs(v))))
	}
	return strconv.FormatFloat(v, 'f', max(d, 0), 64)
}
