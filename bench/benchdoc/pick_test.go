package main

import (
	"strings"
	"testing"
)

const goBench = `goos: linux
BenchmarkGEMM/f32/n=4096-16         	      94	   3641582 ns/op	     37742 GFLOP/s
BenchmarkTrainStep/lenet5-16         	    1311	    969647 ns/op	    103130 images/s
BenchmarkTrainStep/lenet5-16         	    1452	    890218 ns/op	    112332 images/s
BenchmarkLargeStep/resnet50/train	42	24171007 ns/op	662 images/s	22268374 best-ns/op
BenchmarkLargeStepChannelsLast/resnet50/train	41	23621853 ns/op	677.3 images/s	23356765 best-ns/op
`

const gemmOut = `workload               result   go-best    go-med blas-best  blas-med best/best  med/med
matmul/float32/1024    alloc      174.1     169.2     205.0     182.1    0.85x    0.93x
matmul/float32/1024    arena      204.9     192.8     205.0     182.1    1.00x    1.06x
`

func TestPickReads(t *testing.T) {
	for _, c := range []struct {
		name, text, unit string
		p                Pick
		want             string
	}{
		{"column after a two-word row", gemmOut, "GFLOP/s",
			Pick{Rows: []string{"matmul/float32/1024 arena"}, Field: "2"}, "192.8"},
		{"the other row of the same name", gemmOut, "GFLOP/s",
			Pick{Rows: []string{"matmul/float32/1024 alloc"}, Field: "4"}, "182.1"},
		{"the number before ns/op, in ms", goBench, "ms",
			Pick{Rows: []string{"BenchmarkGEMM/f32/n=4096-16"}, Field: "ns/op", Unit: "ns"}, "3.642"},
		{"the mean over repeated lines", goBench, "ms",
			Pick{Rows: []string{"BenchmarkTrainStep/lenet5-16"}, Field: "ns/op", Of: "mean", Unit: "ns"}, "0.9299"},
		{"the faster of two forms", goBench, "ms",
			Pick{Rows: []string{"BenchmarkLargeStep/resnet50/train", "BenchmarkLargeStepChannelsLast/resnet50/train"},
				Field: "ns/op", Of: "min", Unit: "ns"}, "23.62"},
		{"the minimum keeps the raw word", gemmOut, "GFLOP/s",
			Pick{Rows: []string{"matmul/float32/1024"}, Field: "2-3", Of: "min"}, "169.2"},
		{"the median of an odd count", gemmOut, "GFLOP/s",
			Pick{Rows: []string{"matmul/float32/1024 alloc"}, Field: "1-3", Of: "median"}, "174.1"},
		{"the median of an even count, the mean of the middle two", gemmOut, "GFLOP/s",
			Pick{Rows: []string{"matmul/float32/1024 alloc"}, Field: "1-4", Of: "median"}, "178.1"},
	} {
		f, err := c.p.read("raw.txt", c.text, c.unit)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if f.String() != c.want {
			t.Errorf("%s: got %s, want %s", c.name, f, c.want)
		}
	}
}

func TestPickErrors(t *testing.T) {
	for _, c := range []struct {
		name, text string
		p          Pick
		want       string
	}{
		{"no such row", gemmOut, Pick{Rows: []string{"matmul/float64/1024"}, Field: "1"},
			`raw.txt: no line starts with "matmul/float64/1024"`},
		{"a row that is only a prefix of a word", gemmOut, Pick{Rows: []string{"matmul/float32/10"}, Field: "1"},
			"no line starts with"},
		{"two numbers without a reduction", gemmOut, Pick{Rows: []string{"matmul/float32/1024"}, Field: "2"},
			`raw.txt: 2 numbers match; say "of": "mean", "median" or "min"`},
		{"a word that is not a number", gemmOut, Pick{Rows: []string{"matmul/float32/1024"}, Field: "1", Of: "mean"},
			`raw.txt:2: "alloc" is not a number`},
		{"a field past the line's end", gemmOut, Pick{Rows: []string{"matmul/float32/1024 arena"}, Field: "7"},
			"raw.txt:3: field 7: the line has 6 after its row"},
		{"no number before the unit word", goBench, Pick{Rows: []string{"BenchmarkGEMM/f32/n=4096-16"}, Field: "B/op"},
			`raw.txt:2: no number before "B/op"`},
		{"a zero figure", "x 0\n", Pick{Rows: []string{"x"}, Field: "1"}, "raw.txt: 0 is not a positive figure"},
	} {
		_, err := c.p.read("raw.txt", c.text, "ms")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error with %q", c.name, err, c.want)
		}
	}
}

func TestParseField(t *testing.T) {
	for s, want := range map[string]field{"2": {from: 2, to: 2}, "4-6": {from: 4, to: 6}, "ns/op": {unit: "ns/op"}} {
		if got, err := parseField(s); err != nil || got != want {
			t.Errorf("%q: got %+v, %v; want %+v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "0", "3-1", "1-x", "2-"} {
		if _, err := parseField(s); err == nil {
			t.Errorf("%q: no error", s)
		}
	}
}

func TestFormat4(t *testing.T) {
	for v, want := range map[float64]string{7.8566: "7.857", 223.456: "223.5", 3493.4: "3493", 22766.25: "22766", 0.07320: "0.07320"} {
		if got := format4(v); got != want {
			t.Errorf("format4(%v) = %s, want %s", v, got, want)
		}
	}
}
