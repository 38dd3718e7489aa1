package main

import (
	"fmt"
	"os"
	"strings"
)

// The lines around a README's generated tables.
const (
	beginMarker = "<!-- benchdoc:begin -->"
	endMarker   = "<!-- benchdoc:end -->"
)

// splice returns doc with the text between its markers replaced by
// tables, and whether that changed it.
func splice(doc, tables string) (string, bool, error) {
	start, end, err := markers(doc)
	if err != nil {
		return "", false, err
	}
	out := doc[:start] + tables + doc[end:]
	return out, out != doc, nil
}

// markers returns where the text between the marker lines starts and ends.
func markers(doc string) (start, end int, err error) {
	for _, m := range []string{beginMarker, endMarker} {
		if n := strings.Count(doc, m+"\n"); n != 1 {
			return 0, 0, fmt.Errorf("want one %s line, found %d", m, n)
		}
	}
	start = strings.Index(doc, beginMarker+"\n") + len(beginMarker) + 1
	end = strings.Index(doc, endMarker+"\n")
	if end < start {
		return 0, 0, fmt.Errorf("%s comes before %s", endMarker, beginMarker)
	}
	return start, end, nil
}

// update regenerates the tables of the index at path in its README. With
// check it leaves the README as it is and returns an error when its tables
// are stale; otherwise it writes the README when they changed.
func update(path string, check bool) (changed bool, readme string, err error) {
	ix, err := loadIndex(path)
	if err != nil {
		return false, "", err
	}
	tables, err := ix.tables()
	if err != nil {
		return false, "", err
	}
	readme = ix.readmePath()
	old, err := os.ReadFile(readme)
	if err != nil {
		return false, readme, err
	}
	doc, changed, err := splice(string(old), tables)
	if err != nil {
		return false, readme, fmt.Errorf("%s: %w", readme, err)
	}
	if !changed {
		return false, readme, nil
	}
	if check {
		return true, readme, fmt.Errorf("%s: its tables differ from what %s and the raw files give (go run ./bench/benchdoc rewrites them)", readme, path)
	}
	return true, readme, os.WriteFile(readme, []byte(doc), 0o644)
}
