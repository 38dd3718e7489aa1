package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSplice(t *testing.T) {
	doc := "# Title\n\ntext\n" + beginMarker + "\nold table\n" + endMarker + "\nmore text\n"
	got, changed, err := splice(doc, "new table\n")
	want := "# Title\n\ntext\n" + beginMarker + "\nnew table\n" + endMarker + "\nmore text\n"
	if err != nil || !changed || got != want {
		t.Errorf("got %q, %v, %v; want %q", got, changed, err, want)
	}
	if _, changed, err := splice(want, "new table\n"); err != nil || changed {
		t.Errorf("the same table again: changed %v, %v", changed, err)
	}
	for _, c := range []struct{ doc, want string }{
		{"no markers\n", "want one " + beginMarker + " line, found 0"},
		{beginMarker + "\n" + beginMarker + "\n" + endMarker + "\n", "want one " + beginMarker + " line, found 2"},
		{endMarker + "\n" + beginMarker + "\n", endMarker + " comes before " + beginMarker},
	} {
		if _, _, err := splice(c.doc, "t\n"); err == nil || err.Error() != c.want {
			t.Errorf("%q: got %v, want %q", c.doc, err, c.want)
		}
	}
}

// TestUpdate writes a table into a README from a raw file, then checks it,
// then finds it stale once the raw file changes.
func TestUpdate(t *testing.T) {
	path := writeIndex(t, validIndex)
	dir := filepath.Dir(path)
	if err := os.MkdirAll(filepath.Join(dir, "2026-11-27"), 0o755); err != nil {
		t.Fatal(err)
	}
	raw := filepath.Join(dir, "2026-11-27", "t.txt")
	readme := filepath.Join(dir, "README.md")
	write := func(name, text string) {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(raw, "w/float32 2.0 3.0\n")
	write(readme, "intro\n"+beginMarker+"\n"+endMarker+"\nend\n")

	if _, _, err := update(path, true); err == nil || !strings.Contains(err.Error(), "its tables differ") {
		t.Errorf("check of an empty table: %v", err)
	}
	if changed, _, err := update(path, false); err != nil || !changed {
		t.Fatalf("update: changed %v, %v", changed, err)
	}
	b, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	wantRow := "| w | 2.0 ms | 3.0 ms (PyTorch) | 1.50× |  | 2026-11-27 | [2026-11-27/t.txt](2026-11-27/t.txt) | `bench/peer/train.sh 1` |\n"
	if !strings.HasPrefix(string(b), "intro\n"+beginMarker+"\n") || !strings.HasSuffix(string(b), wantRow+endMarker+"\nend\n") ||
		!strings.Contains(string(b), "\n### a machine\n") {
		t.Errorf("README:\n%s", b)
	}
	if changed, _, err := update(path, true); err != nil || changed {
		t.Errorf("check after update: changed %v, %v", changed, err)
	}
	write(raw, "w/float32 2.0 4.0\n")
	if _, _, err := update(path, true); err == nil {
		t.Error("check passed after the raw file changed")
	}
}
