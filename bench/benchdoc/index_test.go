package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// validIndex is an index with one row; the tests below break it one way at
// a time.
const validIndex = `{
  "readme": "README.md",
  "machines": [{"id": "m", "name": "a machine"}],
  "rows": [{"machine": "m", "workload": "w", "unit": "ms", "date": "2026-11-27", "peer": "PyTorch",
    "command": "bench/peer/train.sh 1",
    "ours": {"file": "2026-11-27/t.txt", "rows": ["w/float32"], "field": "1"},
    "theirs": {"file": "2026-11-27/t.txt", "rows": ["w/float32"], "field": "2"}}]
}`

func writeIndex(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "current.json")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadIndex(t *testing.T) {
	ix, err := loadIndex(writeIndex(t, validIndex))
	if err != nil {
		t.Fatal(err)
	}
	if len(ix.Rows) != 1 || ix.Rows[0].Theirs.Field != "2" || ix.Machines[0].Name != "a machine" {
		t.Errorf("read %+v", ix)
	}
}

func TestLoadIndexErrors(t *testing.T) {
	for _, c := range []struct{ old, new, want string }{
		{`"peer": "PyTorch"`, `"peer": "PyTorch", "colour": "red"`, `unknown field "colour"`},
		{`"machine": "m", "workload"`, `"machine": "n", "workload"`, `row 1 ("w"): unknown machine "n"`},
		{`"date": "2026-11-27"`, `"date": "27.11.2026"`, `date "27.11.2026": want YYYY-MM-DD`},
		{`"unit": "ms"`, `"unit": "images"`, `unit "images": want a time`},
		{`"file": "2026-11-27/t.txt", "rows": ["w/float32"], "field": "2"`, `"file": "2026-11-26/t.txt", "rows": ["w/float32"], "field": "2"`,
			"theirs: raw file 2026-11-26/t.txt is not in a folder of the row's date 2026-11-27"},
		{`"field": "1"}`, `"field": "1", "of": "mode"}`, `ours: of "mode": want mean, median, min or nothing`},
		{`"field": "1"}`, `"field": "1", "unit": "GFLOP/s"}`, `ours: unit "GFLOP/s" cannot be shown in "ms"`},
		{`"rows": ["w/float32"], "field": "1"`, `"rows": [], "field": "1"`, "ours: no rows"},
		{`"file": "2026-11-27/t.txt", "rows": ["w/float32"], "field": "1"`, `"file": "../2026-11-27/t.txt", "rows": ["w/float32"], "field": "1"`,
			"want a path inside the index's folder"},
		{`[{"id": "m", "name": "a machine"}]`, `[{"id": "m", "name": "a machine"}, {"id": "idle", "name": "another"}]`,
			`machine "idle" has no rows`},
		{`"command": "bench/peer/train.sh 1",`, ``, "no command"},
	} {
		text := strings.Replace(validIndex, c.old, c.new, 1)
		if text == validIndex {
			t.Fatalf("%q is not in the index", c.old)
		}
		_, err := loadIndex(writeIndex(t, text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s → %s: got %v, want an error with %q", c.old, c.new, err, c.want)
		}
	}
}
