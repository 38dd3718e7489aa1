package main

// A sweep's grid of jobs and the check that each job's command line parses.

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// grid is a sweep: a study command, its fixed flags, and the flags whose
// values vary; the jobs are every combination (the last axis fastest).
type grid struct {
	Command string   `json:"command"`
	Args    []string `json:"args,omitempty"`
	Vary    []axis   `json:"vary"`
}

// axis is one varied flag (without its dash) and its values; "a:b" stands
// for the integers a to b.
type axis struct {
	Flag   string   `json:"flag"`
	Values []string `json:"values"`
}

// job is one combination of a grid: its study runs alone, with its own
// output directory.
type job struct {
	Index int      `json:"index"`
	Name  string   `json:"name"`
	Dir   string   `json:"dir"`
	Args  []string `json:"args"`
	// Settings are the varied flags of Args, as -flag=value.
	Settings []string `json:"settings,omitempty"`
}

// varyFlag collects repeated -vary flag=v1,v2,… values.
type varyFlag []axis

func (v *varyFlag) String() string { return fmt.Sprint(*v) }

func (v *varyFlag) Set(s string) error {
	name, values, ok := strings.Cut(s, "=")
	name = strings.TrimLeft(name, "-")
	if !ok || name == "" || values == "" {
		return fmt.Errorf("want flag=v1,v2,…, got %q", s)
	}
	*v = append(*v, axis{Flag: name, Values: strings.Split(values, ",")})
	return nil
}

// expand lists an axis's values with "a:b" ranges written out.
func (a axis) expand() ([]string, error) {
	var out []string
	for _, v := range a.Values {
		m := intRange.FindStringSubmatch(v)
		if m == nil {
			out = append(out, v)
			continue
		}
		lo, _ := strconv.Atoi(m[1])
		hi, _ := strconv.Atoi(m[2])
		if hi < lo {
			return nil, fmt.Errorf("-vary %s: empty range %s", a.Flag, v)
		}
		for i := lo; i <= hi; i++ {
			out = append(out, strconv.Itoa(i))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-vary %s: no values", a.Flag)
	}
	return out, nil
}

// jobs expands g into its job list, each job's study writing into
// out/<name>, name made of the varied flags' values.
func (g grid) jobs(out string) ([]job, error) {
	if studies[g.Command] == nil {
		return nil, fmt.Errorf("sweep: unknown study command %q (want sim or digits)", g.Command)
	}
	for _, a := range g.Args {
		if a == "-out" || strings.HasPrefix(a, "-out=") || a == "--out" || strings.HasPrefix(a, "--out=") {
			return nil, errors.New("sweep: -out belongs to the sweep (each job writes into a folder of it)")
		}
	}
	jobs := []job{{}}
	for _, a := range g.Vary {
		values, err := a.expand()
		if err != nil {
			return nil, err
		}
		var next []job
		for _, j := range jobs {
			for _, v := range values {
				name := a.Flag + "=" + v
				if j.Name != "" {
					name = j.Name + "_" + name
				}
				next = append(next, job{Name: name, Args: append(append([]string(nil), j.Args...), "-"+a.Flag+"="+v)})
			}
		}
		jobs = next
	}
	clean := strings.NewReplacer("/", "-", " ", "", ",", "+", "'", "", `"`, "")
	for i := range jobs {
		j := &jobs[i]
		j.Index = i
		if j.Name == "" {
			j.Name = "all"
		}
		j.Name = clean.Replace(j.Name)
		j.Dir = filepath.Join(out, j.Name)
		j.Settings = j.Args
		j.Args = append(append(append([]string{g.Command}, g.Args...), j.Args...), "-out", j.Dir)
	}
	return jobs, nil
}

// checkJobs parses and validates each job's command line with its study's
// own flag set and settings checks, and names the first job that would
// fail and why.
func checkJobs(command string, jobs []job) error {
	for _, j := range jobs {
		if err := studies[command](j.Args[1:], true); err != nil {
			return fmt.Errorf("job %d (%s) would fail: %w (its command line: ecl %s)", j.Index, j.Name, err, strings.Join(j.Args, " "))
		}
	}
	return nil
}
