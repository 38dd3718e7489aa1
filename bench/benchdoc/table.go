package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// line is a table row with its figures read.
type line struct {
	Row
	ours, theirs figure
}

// ratio is how many times faster this engine is than the peer.
func (l line) ratio() float64 {
	if isRate(l.Unit) {
		return l.ours.v / l.theirs.v
	}
	return l.theirs.v / l.ours.v
}

// readRows reads every row's two figures from the raw files under dir.
func readRows(dir string, rows []Row) ([]line, error) {
	files := map[string]string{}
	text := func(name string) (string, error) {
		if t, ok := files[name]; ok {
			return t, nil
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return "", err
		}
		files[name] = string(b)
		return files[name], nil
	}
	out := make([]line, len(rows))
	for i, r := range rows {
		out[i].Row = r
		for _, side := range []struct {
			p  Pick
			to *figure
		}{{r.Ours, &out[i].ours}, {r.Theirs, &out[i].theirs}} {
			t, err := text(side.p.File)
			if err != nil {
				return nil, fmt.Errorf("row %q: %w", r.Workload, err)
			}
			if *side.to, err = side.p.read(side.p.File, t, r.Unit); err != nil {
				return nil, fmt.Errorf("row %q: %w", r.Workload, err)
			}
		}
	}
	return out, nil
}

// tables renders the index's tables, one per machine, with raw files linked
// relative to the README.
func (ix *Index) tables() (string, error) {
	lines, err := readRows(ix.dir(), ix.Rows)
	if err != nil {
		return "", fmt.Errorf("%s: %w", ix.path, err)
	}
	rel, err := filepath.Rel(filepath.Dir(ix.readmePath()), ix.dir())
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<!-- Written by `go run ./bench/benchdoc` from %s and the raw files it names: edit those, then run it. -->\n",
		filepath.ToSlash(filepath.Join(rel, filepath.Base(ix.path))))
	for _, m := range ix.Machines {
		fmt.Fprintf(&b, "\n### %s\n\n", m.Name)
		if m.Note != "" {
			b.WriteString(m.Note + "\n\n")
		}
		b.WriteString("| workload | this engine | peer | ratio (above 1: this engine is faster) | target | date | raw file | command |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|\n")
		for _, l := range lines {
			if l.Machine == m.ID {
				b.WriteString(l.markdown(filepath.ToSlash(rel)) + "\n")
			}
		}
	}
	return b.String(), nil
}

// markdown is the row as a Markdown table row; rel is the raw files' folder
// relative to the README.
func (l line) markdown(rel string) string {
	files := link(rel, l.Ours.File)
	if l.Theirs.File != l.Ours.File {
		files += ", " + link(rel, l.Theirs.File)
	}
	cells := []string{
		cell(l.Workload),
		cell(l.ours.String() + " " + l.Unit + reduced(l.Ours.Of)),
		cell(l.theirs.String() + " " + l.Unit + reduced(l.Theirs.Of) + " (" + l.Peer + ")"),
		formatRatio(l.ratio()),
		cell(l.target()),
		l.Date,
		files,
		"`" + cell(l.Command) + "`",
	}
	return "| " + strings.Join(cells, " | ") + " |"
}

// reduced names a pick's reduction after its figure: ", mean", ", median",
// ", best", or nothing for a single number.
func reduced(of string) string {
	switch of {
	case "min":
		return ", best"
	case "":
		return ""
	}
	return ", " + of
}

// target says whether the row's ratio reaches the one its issue asks for.
func (l line) target() string {
	if l.Target == 0 {
		return ""
	}
	t := "≥ " + strconv.FormatFloat(l.Target, 'g', -1, 64) + "×"
	if l.Issue != "" {
		t += " (" + l.Issue + ")"
	}
	if l.ratio() >= l.Target {
		return t + ": met"
	}
	return t + ": not met"
}

func formatRatio(r float64) string {
	if r >= 10 {
		return fmt.Sprintf("%.1f×", r)
	}
	return fmt.Sprintf("%.2f×", r)
}

func link(rel, file string) string {
	return fmt.Sprintf("[%s](%s)", file, filepath.ToSlash(filepath.Join(rel, file)))
}

// cell escapes the pipes that would end a Markdown table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
