package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/datasets/sim"
	"github.com/ecl-go/ecl/ecl"
)

// A study with a Store writes one record per run, reuses them when run
// again, re-trains a run whose file is damaged and keys a changed
// configuration apart.
func TestStoreResumesRuns(t *testing.T) {
	dir := t.TempDir()
	c := SimConfig{Recipe: "paper", Shifts: []sim.Kind{sim.Uniform, sim.Normal}, Study: Study{Paradigms: []ecl.Paradigm{ecl.TopLabel}, Runs: 2, Seed: 3, Control: true, Store: Store{Dir: dir, Resume: true}},
		Points: 40, Hidden: 6, BaseEpochs: 3, AuxEpochs: 1, ECLEpochs: 1}
	first, err := RunSim(c)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "runs", "*.json"))
	if len(files) != 4 {
		t.Fatalf("%d record files, want 4 (2 shifts × 2 seeds): %v", len(files), files)
	}
	rec, err := ReadRecord(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if rec.Format != RecordFormat || rec.Code == "" || rec.Wall <= 0 || len(rec.Results) != 3 || len(rec.Diagrams) != 3 || !strings.Contains(string(rec.Config), `"BaseEpochs":3`) {
		t.Errorf("record %s: %+v", files[0], rec)
	}
	// A damaged file is trained again; the others are read back.
	if err := os.WriteFile(files[1], []byte(`{"Format":`), 0o644); err != nil {
		t.Fatal(err)
	}
	stamp := func(f string) int64 { st, _ := os.Stat(f); return st.ModTime().UnixNano() }
	before := stamp(files[0])
	again, err := RunSim(c)
	if err != nil {
		t.Fatal(err)
	}
	if stamp(files[0]) != before {
		t.Error("a valid record was rewritten")
	}
	if _, err := ReadRecord(files[1]); err != nil {
		t.Errorf("damaged record not rewritten: %v", err)
	}
	if len(again) != len(first) {
		t.Fatalf("%d results resumed, want %d", len(again), len(first))
	}
	for i := range first {
		if again[i].Target != first[i].Target || again[i].Method != first[i].Method || again[i].Seed != first[i].Seed {
			t.Errorf("row %d: resumed %+v, want %+v", i, again[i], first[i])
		}
	}
	c.ECLEpochs = 2
	if _, err := RunSim(c); err != nil {
		t.Fatal(err)
	}
	files, _ = filepath.Glob(filepath.Join(dir, "runs", "*.json"))
	if len(files) != 8 {
		t.Errorf("%d record files after changing the configuration, want 8", len(files))
	}
	recs, plans, err := ReadRecords(dir)
	if err != nil || len(recs) != 8 || len(plans) != 1 || len(plans[0].Runs) != 4 {
		t.Errorf("ReadRecords: %d records, plans %+v, %v", len(recs), plans, err)
	}
}
