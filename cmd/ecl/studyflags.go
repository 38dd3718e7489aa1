package main

// The study commands' flags: parsing lists and wording settings errors as flags.

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/experiment"
)

// flagError words a study's SettingError as the flag that set it.
func flagError(err error) error {
	var se *experiment.SettingError
	if errors.As(err, &se) {
		if name, ok := settingFlags[se.Field]; ok {
			return fmt.Errorf("-%s %v: want %s", name, se.Value, se.Want)
		}
	}
	return err
}

func parseReduce(s string) (ecl.Reduction, error) {
	switch s {
	case "sum":
		return ecl.Sum, nil
	case "mean":
		return ecl.Mean, nil
	}
	return 0, fmt.Errorf("-reduce %q: want sum or mean", s)
}

func parseMetrics(s string) (metrics.Options, error) {
	switch s {
	case "paper":
		return metrics.Options{}, nil
	case "reference":
		return metrics.ReferenceOptions(), nil
	}
	return metrics.Options{}, fmt.Errorf("-metrics %q: want paper or reference", s)
}

func parseList[E any](flag, s string, parse func(string) (E, error)) ([]E, error) {
	var out []E
	for _, f := range strings.Split(s, ",") {
		v, err := parse(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("-%s: %w", flag, err)
		}
		out = append(out, v)
	}
	return out, nil
}
