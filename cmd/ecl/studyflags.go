package main

// The study commands' flags: parsing lists and wording settings errors as flags.

import (
	"errors"
	"fmt"
	"slices"
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

// parseMethods reads -methods: a comma list of baselines, all, or
// empty/none. "uncal" and "ecl" may be listed too: their rows are always
// there (ECL's in the paradigms of -paradigms).
func parseMethods(s string) ([]string, error) {
	switch s {
	case "", "none":
		return nil, nil
	case "all":
		return experiment.Methods, nil
	}
	var ms []string
	for _, m := range strings.Split(s, ",") {
		switch {
		case m == "uncal" || m == "ecl":
		case slices.Contains(experiment.Methods, m):
			ms = append(ms, m)
		default:
			return nil, fmt.Errorf("-methods: unknown method %q (want %s, all or none)", m, strings.Join(experiment.Methods, ", "))
		}
	}
	return ms, nil
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
