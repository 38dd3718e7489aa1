package main

import (
	"flag"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
)

// undefinedFlag matches the flag package's error for a flag the set lacks.
var undefinedFlag = regexp.MustCompile(`^flag provided but not defined: -+(.*)$`)

// parseFlags parses args with fs. A flag fs does not define is reported
// by name, with the defined flags closest to it; quiet (ecl sweep's check
// of its jobs) keeps the flag package's usage text off stderr.
func parseFlags(fs *flag.FlagSet, args []string, quiet bool) error {
	if quiet {
		fs.SetOutput(io.Discard)
	}
	err := fs.Parse(args)
	if err == nil {
		return nil
	}
	m := undefinedFlag.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	msg := fmt.Sprintf("-%s: not a flag of ecl %s", m[1], fs.Name())
	if near := nearFlags(fs, m[1]); len(near) > 0 {
		msg += " (did you mean -" + strings.Join(near, ", -") + "?)"
	}
	return fmt.Errorf("%s; ecl %s -h lists its flags", msg, fs.Name())
}

// nearFlags lists fs's flags that contain name, or that name contains, or
// that are within two edits of it, in alphabetical order.
func nearFlags(fs *flag.FlagSet, name string) []string {
	var out []string
	fs.VisitAll(func(f *flag.Flag) {
		if strings.Contains(f.Name, name) || strings.Contains(name, f.Name) || editDistance(f.Name, name) <= 2 {
			out = append(out, f.Name)
		}
	})
	sort.Strings(out)
	return out
}

// editDistance is the Levenshtein distance between a and b (in bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// checkDevice checks a -device name without opening the device (the
// machine that checks a sweep may have no GPU).
func checkDevice(name string) error {
	if name == "cpu" || name == "cuda" {
		return nil
	}
	return fmt.Errorf("-device %q: want cpu or cuda", name)
}
