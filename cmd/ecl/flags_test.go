package main

import (
	"slices"
	"testing"

	"github.com/ecl-go/ecl/experiment"
)

func TestParseMethods(t *testing.T) {
	for in, want := range map[string][]string{
		"":                 nil,
		"none":             nil,
		"all":              experiment.Methods,
		"uncal,ts,ecl":     {"ts"},
		"ts,pseudocal,kde": {"ts", "pseudocal", "kde"},
	} {
		got, err := parseMethods(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%q: %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := parseMethods("ts,platt"); err == nil {
		t.Error("unknown method accepted")
	}
}
