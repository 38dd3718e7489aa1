package sweep

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestGridJobs(t *testing.T) {
	g := Grid{Command: "sim", Args: []string{"-runs", "1"}, Vary: []Axis{{"seed", []string{"1:3"}}, {"shifts", []string{"normal", "uniform"}}}}
	jobs, err := g.Jobs("out")
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 6 {
		t.Fatalf("%d jobs, want 6", len(jobs))
	}
	want := []string{"sim", "-runs", "1", "-seed=2", "-shifts=uniform", "-out", filepath.Join("out", "seed=2_shifts=uniform")}
	if j := jobs[3]; j.Index != 3 || j.Name != "seed=2_shifts=uniform" || !slices.Equal(j.Args, want) || !slices.Equal(j.Settings, []string{"-seed=2", "-shifts=uniform"}) {
		t.Errorf("job 3: %+v, want args %v", j, want)
	}
	if jobs, err := (Grid{Command: "sim"}).Jobs("o"); err != nil || len(jobs) != 1 || jobs[0].Name != "all" {
		t.Errorf("no axes: %+v, %v; want the one job all", jobs, err)
	}
	for _, bad := range []Grid{
		{Command: "sim", Args: []string{"-out", "x"}},
		{Command: "sim", Args: []string{"--out=x"}},
		{Command: "sim", Vary: []Axis{{"seed", []string{"3:1"}}}},
		{Command: "sim", Vary: []Axis{{"seed", nil}}},
	} {
		if _, err := bad.Jobs("out"); err == nil {
			t.Errorf("grid %+v accepted", bad)
		}
	}
}

// Load merges a grid file, a command line and -vary axes, and refuses a
// file's unknown field and a command that disagrees with the file's.
func TestLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grid.json")
	os.WriteFile(path, []byte(`{"command": "digits", "args": ["-epochs", "100"], "vary": [{"flag": "methods", "values": ["ts,cpcs", "all"]}]}`), 0o644)
	var v Vary
	if err := v.Set("-target=mnist,usps"); err != nil {
		t.Fatal(err)
	}
	g, err := Load(path, []string{"digits", "-runs", "1"}, v)
	if err != nil {
		t.Fatal(err)
	}
	want := Grid{Command: "digits", Args: []string{"-epochs", "100", "-runs", "1"}, Vary: []Axis{{"methods", []string{"ts,cpcs", "all"}}, {"target", []string{"mnist", "usps"}}}}
	if g.Command != want.Command || !slices.Equal(g.Args, want.Args) || len(g.Vary) != 2 || g.Vary[1].Flag != "target" || !slices.Equal(g.Vary[0].Values, want.Vary[0].Values) {
		t.Errorf("grid %+v, want %+v", g, want)
	}
	if _, err := Load(path, []string{"sim"}, nil); err == nil || !strings.Contains(err.Error(), "command sim on the command line, digits in") {
		t.Errorf("disagreeing command: %v", err)
	}
	os.WriteFile(path, []byte(`{"command": "digits", "seeds": [1]}`), 0o644)
	if _, err := Load(path, nil, nil); err == nil || !strings.Contains(err.Error(), "seeds") {
		t.Errorf("unknown grid field: %v", err)
	}
	for _, bad := range []string{"seed", "=1,2", "seed="} {
		if err := v.Set(bad); err == nil {
			t.Errorf("-vary %q accepted", bad)
		}
	}
}
