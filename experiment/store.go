package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/internal/atomicfile"
)

// RecordFormat names the layout of a run's result file.
const RecordFormat = "ecl-run/1"

// Calibrations are the binned calibrations of one model's target
// predictions (paper conventions), what its reliability diagrams draw.
type Calibrations struct {
	TopLabel  metrics.Calibration
	Classwise metrics.Classwise
	// Canonical is kept for 3 classes only (the simplex diagram), without
	// the per-sample assignment.
	Canonical *metrics.Canonical `json:",omitempty"`
}

// calibrate computes the Calibrations of probs [N, k] against labels.
func calibrate(probs []float64, k int, labels []int) (*Calibrations, error) {
	var c Calibrations
	var err error
	if c.TopLabel, err = metrics.ECE(probs, k, labels, metrics.Options{}); err != nil {
		return nil, err
	}
	if c.Classwise, err = metrics.ClasswiseECE(probs, k, labels, metrics.Options{}); err != nil {
		return nil, err
	}
	if k == 3 {
		can, err := metrics.CanonicalECE(probs, k, labels, metrics.Options{})
		if err != nil {
			return nil, err
		}
		can.Assign = nil
		c.Canonical = &can
	}
	return &c, nil
}

// Record is the result file of one run: the models trained on one base
// model (one seed of one setting), with everything needed to trust,
// reuse and summarise them.
type Record struct {
	Format string
	Study  string // "sim", "digits" or "images"
	// Key is the hash of Study, Config and Data: a file is reused only for
	// the same key. Setting is the same hash with the seed left out, which
	// groups the seeds of one setting.
	Key, Setting string
	Label        string
	Seed         uint64
	Config       json.RawMessage
	// Data maps each data file read (relative to DataDir) to its SHA-256.
	Data    map[string]string `json:",omitempty"`
	DataDir string            `json:",omitempty"`
	// Code is the VCS revision the binary was built from ("+dirty" with
	// uncommitted changes), "devel" without VCS information, "unknown"
	// without build information.
	Code string
	// Wall is the run's wall time in seconds.
	Wall    float64
	Results []Result
	// Diagrams holds each result's calibrations, in order (may be left
	// out: the results stand without their diagrams).
	Diagrams []*Calibrations `json:",omitempty"`
}

// Store keeps a study's run records in Dir/runs, one file per run, so that
// a killed study loses at most the runs in flight and the records being
// written.
type Store struct {
	// Dir is the study's output directory; empty keeps nothing.
	Dir string
	// Resume reuses a run whose record is in Dir/runs with the same key;
	// Reused, when set, is called with each reused run's label.
	Resume bool
	Reused func(label string) `json:"-"`
}

// runSpec identifies one run of a study.
type runSpec struct {
	study, label string
	seed         uint64
	// config is what the run's results depend on besides the seed and data.
	config  any
	data    map[string]string
	dataDir string
}

// hashOf is the first 16 hex digits of the SHA-256 of the parts' JSON.
func hashOf(parts ...any) (string, error) {
	h := sha256.New()
	for _, p := range parts {
		b, err := json.Marshal(p)
		if err != nil {
			return "", fmt.Errorf("experiment: hashing the run configuration: %w", err)
		}
		h.Write(b)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// keys returns the run's key and setting hash.
func (s runSpec) keys() (key, setting string, err error) {
	if key, err = hashOf(s.study, s.config, s.seed, s.data); err != nil {
		return "", "", err
	}
	setting, err = hashOf(s.study, s.config, s.data)
	return key, setting, err
}

// fileName is the record's name in Dir/runs: the label, then the key.
func fileName(label, key string) string {
	r := strings.NewReplacer(" ", "-", "/", "-", "→", "to-", "=", "")
	return r.Replace(label) + "-" + key + ".json"
}

// PlanEntry names one planned run of a study and its record file.
type PlanEntry struct{ Key, Label, File string }

// Plan is a study's list of runs, written to Dir/plan.json when the study
// starts so that a report can list the runs that are missing.
type Plan struct {
	Study string
	Args  []string `json:",omitempty"`
	Runs  []PlanEntry
}

// writePlan writes the plan of the given runs to Dir/plan.json.
func (st Store) writePlan(study string, args []string, specs []runSpec) error {
	if st.Dir == "" {
		return nil
	}
	p := Plan{Study: study, Args: args}
	for _, s := range specs {
		key, _, err := s.keys()
		if err != nil {
			return err
		}
		p.Runs = append(p.Runs, PlanEntry{Key: key, Label: s.label, File: filepath.Join("runs", fileName(s.label, key))})
	}
	if err := os.MkdirAll(filepath.Join(st.Dir, "runs"), 0o755); err != nil {
		return err
	}
	return writeJSON(filepath.Join(st.Dir, "plan.json"), p)
}

// writeJSON writes v as indented JSON to path, atomically.
func writeJSON(path string, v any) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	})
}

// do returns the results of the run s: those of its record when resuming
// and the record is there and valid, else those exec computes, with the
// function that writes their record (atomically; nil when there is none to
// write), so that the caller may start its next run meanwhile.
func (st Store) do(s runSpec, exec func() ([]Result, error)) ([]Result, func() error, error) {
	run := func() ([]Result, error) {
		rs, err := exec()
		if err != nil {
			return nil, fmt.Errorf("experiment: run %s failed: %w", s.label, err)
		}
		return rs, nil
	}
	if st.Dir == "" {
		rs, err := run()
		return rs, nil, err
	}
	key, setting, err := s.keys()
	if err != nil {
		return nil, nil, err
	}
	path := filepath.Join(st.Dir, "runs", fileName(s.label, key))
	if st.Resume {
		if r, err := ReadRecord(path); err == nil && r.Key == key {
			if st.Reused != nil {
				st.Reused(s.label)
			}
			return r.Results, nil, nil
		}
	}
	start := time.Now()
	rs, err := run()
	if err != nil {
		return nil, nil, err
	}
	wall := time.Since(start).Seconds()
	return rs, func() error { return st.save(s, key, setting, path, wall, rs) }, nil
}

// save writes the record of run s, its results rs computed in wall seconds,
// to path.
func (st Store) save(s runSpec, key, setting, path string, wall float64, rs []Result) error {
	cfg, err := json.Marshal(s.config)
	if err != nil {
		return err
	}
	rec := Record{
		Format: RecordFormat, Study: s.study, Key: key, Setting: setting, Label: s.label, Seed: s.seed,
		Config: cfg, Data: s.data, DataDir: s.dataDir, Code: CodeVersion(),
		Wall: wall, Results: rs,
	}
	for _, r := range rs {
		rec.Diagrams = append(rec.Diagrams, r.Diagram)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error { return json.NewEncoder(w).Encode(rec) })
}

// ReadRecord reads and checks a run's result file; its results carry
// their diagrams' calibrations when the file has them.
func ReadRecord(path string) (*Record, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	switch {
	case r.Format != RecordFormat:
		return nil, fmt.Errorf("%s: format %q, want %q", path, r.Format, RecordFormat)
	case len(r.Key) != 16 || !strings.HasSuffix(filepath.Base(path), "-"+r.Key+".json"):
		return nil, fmt.Errorf("%s: key %q does not match the file name", path, r.Key)
	case len(r.Results) == 0 || len(r.Diagrams) != 0 && len(r.Diagrams) != len(r.Results):
		return nil, fmt.Errorf("%s: %d results and %d diagrams", path, len(r.Results), len(r.Diagrams))
	}
	for i, d := range r.Diagrams {
		r.Results[i].Diagram = d
	}
	return &r, nil
}

// ReadRecords reads every run record under the given directories (files
// *.json in folders named runs), ordered by seed and label, and the plans
// found beside them. A file that does not read as a record is an error.
func ReadRecords(dirs ...string) ([]*Record, []Plan, error) {
	var recs []*Record
	var plans []Plan
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			switch {
			case d.IsDir() || strings.HasPrefix(d.Name(), "."):
			case d.Name() == "plan.json":
				var p Plan
				b, err := os.ReadFile(path)
				if err == nil {
					err = json.Unmarshal(b, &p)
				}
				if err != nil {
					return fmt.Errorf("%s: %w", path, err)
				}
				plans = append(plans, p)
			case filepath.Base(filepath.Dir(path)) == "runs" && strings.HasSuffix(path, ".json"):
				r, err := ReadRecord(path)
				if err != nil {
					return err
				}
				recs = append(recs, r)
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	sort.SliceStable(recs, func(i, j int) bool {
		a, b := recs[i], recs[j]
		return a.Seed < b.Seed || a.Seed == b.Seed && a.Label < b.Label
	})
	return recs, plans, nil
}

// CodeVersion is the VCS revision of the running binary ("+dirty" with
// uncommitted changes), "devel" when it was built without VCS information
// and "unknown" without build information.
func CodeVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	switch {
	case rev == "":
		return "devel"
	case dirty:
		return rev + "+dirty"
	}
	return rev
}
