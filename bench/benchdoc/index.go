package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Index lists the current rows of one README's tables (the package
// documentation describes its JSON).
type Index struct {
	README   string    `json:"readme"`
	Machines []Machine `json:"machines"`
	Rows     []Row     `json:"rows"`

	path string // the index file, as opened
}

// Machine is what a table's rows ran on.
type Machine struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Note string `json:"note,omitempty"`
}

// Row is one workload of a table: where its two figures are, and how it was
// made.
type Row struct {
	Machine  string  `json:"machine"`
	Workload string  `json:"workload"`
	Unit     string  `json:"unit"`
	Date     string  `json:"date"`
	Command  string  `json:"command"`
	Peer     string  `json:"peer"`
	Target   float64 `json:"target,omitempty"`
	Issue    string  `json:"issue,omitempty"`
	Ours     Pick    `json:"ours"`
	Theirs   Pick    `json:"theirs"`
}

// Pick says which numbers of a raw file give a figure.
type Pick struct {
	File  string   `json:"file"`
	Rows  []string `json:"rows"`
	Field string   `json:"field"`
	Of    string   `json:"of,omitempty"`
	Unit  string   `json:"unit,omitempty"`
}

// dir is the folder the index's file names are relative to.
func (ix *Index) dir() string { return filepath.Dir(ix.path) }

// readmePath is the README the index's tables belong in.
func (ix *Index) readmePath() string { return filepath.Join(ix.dir(), ix.README) }

// loadIndex reads and checks an index file.
func loadIndex(path string) (*Index, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	ix := &Index{path: path}
	if err := dec.Decode(ix); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := ix.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ix, nil
}

// check reports the first missing or malformed entry of the index.
func (ix *Index) check() error {
	if ix.README == "" {
		return fmt.Errorf(`no "readme"`)
	}
	if len(ix.Machines) == 0 {
		return fmt.Errorf(`no "machines"`)
	}
	used := map[string]int{}
	for i, m := range ix.Machines {
		if m.ID == "" || m.Name == "" {
			return fmt.Errorf("machine %d: want an id and a name", i+1)
		}
		if _, dup := used[m.ID]; dup {
			return fmt.Errorf("machine %q listed twice", m.ID)
		}
		used[m.ID] = 0
	}
	for i, r := range ix.Rows {
		if err := r.check(); err != nil {
			return fmt.Errorf("row %d (%q): %w", i+1, r.Workload, err)
		}
		n, ok := used[r.Machine]
		if !ok {
			return fmt.Errorf("row %d (%q): unknown machine %q", i+1, r.Workload, r.Machine)
		}
		used[r.Machine] = n + 1
	}
	for _, m := range ix.Machines {
		if used[m.ID] == 0 {
			return fmt.Errorf("machine %q has no rows", m.ID)
		}
	}
	return nil
}

func (r Row) check() error {
	switch {
	case r.Workload == "":
		return fmt.Errorf("no workload")
	case r.Command == "":
		return fmt.Errorf("no command")
	case r.Peer == "":
		return fmt.Errorf("no peer")
	case r.Target < 0:
		return fmt.Errorf("negative target %g", r.Target)
	}
	if _, err := time.Parse(time.DateOnly, r.Date); err != nil {
		return fmt.Errorf("date %q: want YYYY-MM-DD", r.Date)
	}
	if !isTime(r.Unit) && !isRate(r.Unit) {
		return fmt.Errorf("unit %q: want a time (ns, µs, ms, s) or a rate (…/s)", r.Unit)
	}
	for _, p := range []struct {
		name string
		p    Pick
	}{{"ours", r.Ours}, {"theirs", r.Theirs}} {
		if err := p.p.check(r.Unit); err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
		if !strings.HasPrefix(p.p.File, r.Date) {
			return fmt.Errorf("%s: raw file %s is not in a folder of the row's date %s", p.name, p.p.File, r.Date)
		}
	}
	return nil
}

func (p Pick) check(unit string) error {
	if p.File == "" || filepath.IsAbs(p.File) || strings.HasPrefix(filepath.Clean(p.File), "..") {
		return fmt.Errorf("file %q: want a path inside the index's folder", p.File)
	}
	if len(p.Rows) == 0 {
		return fmt.Errorf("no rows")
	}
	for _, r := range p.Rows {
		if len(strings.Fields(r)) == 0 {
			return fmt.Errorf("an empty row")
		}
	}
	if _, err := parseField(p.Field); err != nil {
		return err
	}
	switch p.Of {
	case "", "mean", "median", "min":
	default:
		return fmt.Errorf("of %q: want mean, median, min or nothing", p.Of)
	}
	if p.Unit != "" && p.Unit != unit && !(isTime(p.Unit) && isTime(unit)) {
		return fmt.Errorf("unit %q cannot be shown in %q", p.Unit, unit)
	}
	return nil
}
