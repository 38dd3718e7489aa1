package sweep

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Grid is a sweep: a study command, its fixed flags, and the flags whose
// values vary; the jobs are every combination (the last axis fastest).
type Grid struct {
	Command string   `json:"command"`
	Args    []string `json:"args,omitempty"`
	Vary    []Axis   `json:"vary"`
}

// Axis is one varied flag (without its dash) and its values; "a:b" stands
// for the integers a to b.
type Axis struct {
	Flag   string   `json:"flag"`
	Values []string `json:"values"`
}

// Job is one combination of a grid: its study runs alone, with its own
// output directory.
type Job struct {
	Index int      `json:"index"`
	Name  string   `json:"name"`
	Dir   string   `json:"dir"`
	Args  []string `json:"args"`
	// Settings are the varied flags of Args, as -flag=value.
	Settings []string `json:"settings,omitempty"`
}

// Vary is a flag.Value that collects repeated -vary flag=v1,v2,… values.
type Vary []Axis

func (v *Vary) String() string { return fmt.Sprint(*v) }

// Set adds the axis of s, flag=v1,v2,….
func (v *Vary) Set(s string) error {
	name, values, ok := strings.Cut(s, "=")
	name = strings.TrimLeft(name, "-")
	if !ok || name == "" || values == "" {
		return fmt.Errorf("want flag=v1,v2,…, got %q", s)
	}
	*v = append(*v, Axis{Flag: name, Values: strings.Split(values, ",")})
	return nil
}

// Load returns the grid of the grid file path (JSON, unknown fields
// refused; none when path is empty) with a command line's study command
// and flags (rest: the command first, which must agree with the file's)
// and the axes vary added.
func Load(path string, rest []string, vary []Axis) (Grid, error) {
	var g Grid
	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return Grid{}, err
		}
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&g); err != nil {
			return Grid{}, fmt.Errorf("sweep: grid file %s: %w", path, err)
		}
	}
	if len(rest) > 0 {
		if g.Command != "" && g.Command != rest[0] {
			return Grid{}, fmt.Errorf("sweep: command %s on the command line, %s in %s", rest[0], g.Command, path)
		}
		g.Command, g.Args = rest[0], append(g.Args, rest[1:]...)
	}
	g.Vary = append(g.Vary, vary...)
	return g, nil
}

var intRange = regexp.MustCompile(`^(-?[0-9]+):(-?[0-9]+)$`)

// expand lists an axis's values with "a:b" ranges written out.
func (a Axis) expand() ([]string, error) {
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

// Jobs expands g into its job list, each job's study writing into
// out/<name>, name made of the varied flags' values. The fixed flags may
// not hold -out, which belongs to the sweep.
func (g Grid) Jobs(out string) ([]Job, error) {
	for _, a := range g.Args {
		if a == "-out" || strings.HasPrefix(a, "-out=") || a == "--out" || strings.HasPrefix(a, "--out=") {
			return nil, errors.New("sweep: -out belongs to the sweep (each job writes into a folder of it)")
		}
	}
	jobs := []Job{{}}
	for _, a := range g.Vary {
		values, err := a.expand()
		if err != nil {
			return nil, err
		}
		var next []Job
		for _, j := range jobs {
			for _, v := range values {
				name := a.Flag + "=" + v
				if j.Name != "" {
					name = j.Name + "_" + name
				}
				next = append(next, Job{Name: name, Args: append(append([]string(nil), j.Args...), "-"+a.Flag+"="+v)})
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
