package experiment

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generated method list of docs/commands.md")

// commandsDoc is the document whose method list is generated, between its
// markers.
const (
	commandsDoc = "../docs/commands.md"
	docBegin    = "<!-- methods: generated from experiment's registry; after a change run\ngo test ./experiment -run TestCommandsDocMethods -update -->\n"
	docEnd      = "<!-- end methods -->\n"
)

// methodsMarkdown is the registry as a Markdown table, in table order.
func methodsMarkdown() string {
	var b strings.Builder
	b.WriteString("| `-methods` key | row | kind | what it is |\n|---|---|---|---|\n")
	for _, m := range Registered() {
		kind := "fine-tuned"
		if m.PostHoc {
			kind = "post-hoc"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", m.Key, m.Name, kind, m.About)
	}
	return b.String()
}

// TestCommandsDocMethods: docs/commands.md lists the registered methods as
// the registry has them (-update rewrites the list).
func TestCommandsDocMethods(t *testing.T) {
	b, err := os.ReadFile(commandsDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	before, rest, ok := strings.Cut(doc, docBegin)
	list, after, ok2 := strings.Cut(rest, docEnd)
	if !ok || !ok2 {
		t.Fatalf("%s: no method list between %q and %q", commandsDoc, docBegin, docEnd)
	}
	want := methodsMarkdown()
	if list == want {
		return
	}
	if !*update {
		t.Fatalf("%s: the method list is stale; run go test ./experiment -run TestCommandsDocMethods -update\nhave:\n%s\nwant:\n%s", commandsDoc, list, want)
	}
	if err := os.WriteFile(commandsDoc, []byte(before+docBegin+want+docEnd+after), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestExtendingDoc: docs/extending.md shows the focal method's code as it
// is: focal.go from its first declaration on, and its registry line.
func TestExtendingDoc(t *testing.T) {
	doc, err := os.ReadFile("../docs/extending.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("focal.go")
	if err != nil {
		t.Fatal(err)
	}
	_, code, ok := strings.Cut(string(src), ")\n\n")
	if !ok || !strings.Contains(string(doc), "```go\n"+code+"```\n") {
		t.Errorf("docs/extending.md does not show focal.go after its imports:\n%s", code)
	}
	reg, err := os.ReadFile("methods.go")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(reg), "\n")
	i := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, `{Method{"focal"`) })
	if i < 0 || !strings.Contains(string(doc), "```go\n"+lines[i]+"\n```\n") {
		t.Errorf("docs/extending.md does not show focal's registry line of methods.go")
	}
}
