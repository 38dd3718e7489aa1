package cuda

import (
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"testing"
)

var (
	entryRE = regexp.MustCompile(`(?s)\.visible \.entry (\w+)\((.*?)\)`)
	paramRE = regexp.MustCompile(`\.param \.(\w+)`)
)

// ptxEntries maps each kernel entry of the embedded PTX to its parameter
// types, keyed by "module/name".
func ptxEntries(t *testing.T) map[string][]string {
	t.Helper()
	files, err := fs.Glob(ptxFiles, "ptx/*.ptx")
	if err != nil || len(files) == 0 {
		t.Fatalf("no embedded PTX (%v): run ./gen.sh", err)
	}
	entries := map[string][]string{}
	for _, f := range files {
		src, err := ptxFiles.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(src), "Cuda compilation tools, release 11.8") || !strings.Contains(string(src), ".target sm_80") {
			t.Errorf("%s: not compiled by nvcc 11.8 for compute_80", f)
		}
		module := strings.TrimSuffix(strings.TrimPrefix(f, "ptx/"), ".ptx")
		for _, m := range entryRE.FindAllStringSubmatch(string(src), -1) {
			var types []string
			for _, p := range paramRE.FindAllStringSubmatch(m[2], -1) {
				types = append(types, p[1])
			}
			entries[module+"/"+m[1]] = types
		}
	}
	return entries
}

// TestHopperModules checks that each module compiled for compute_90 has
// the same entries, with the same parameters, as its compute_80 build.
func TestHopperModules(t *testing.T) {
	files, err := fs.Glob(ptxFiles, "ptx/sm_90/*.ptx")
	if err != nil || len(files) == 0 {
		t.Fatalf("no embedded compute_90 PTX (%v): run ./gen.sh", err)
	}
	for _, f := range files {
		src80, err := ptxFiles.ReadFile("ptx/" + strings.TrimPrefix(f, "ptx/sm_90/"))
		if err != nil {
			t.Errorf("%s has no compute_80 build: %v", f, err)
			continue
		}
		src90, err := ptxFiles.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(src90), "Cuda compilation tools, release 11.8") || !strings.Contains(string(src90), ".target sm_90") {
			t.Errorf("%s: not compiled by nvcc 11.8 for compute_90", f)
		}
		e80, e90 := entryRE.FindAllStringSubmatch(string(src80), -1), entryRE.FindAllStringSubmatch(string(src90), -1)
		if len(e80) != len(e90) {
			t.Errorf("%s: %d entries, its compute_80 build %d", f, len(e90), len(e80))
			continue
		}
		for i := range e80 {
			if e80[i][1] != e90[i][1] || strings.Join(paramRE.FindAllString(e80[i][2], -1), ",") != strings.Join(paramRE.FindAllString(e90[i][2], -1), ",") {
				t.Errorf("%s: entry %d is %s(%d parameters), in the compute_80 build %s(%d)", f, i, e90[i][1], len(paramRE.FindAllString(e90[i][2], -1)), e80[i][1], len(paramRE.FindAllString(e80[i][2], -1)))
			}
		}
	}
}

// TestKernelTable checks the launcher's kernel table against the PTX: every
// kernel exists for both element types, with as many parameters as the
// table lists, each 8 bytes wide and of the listed kind; and every PTX entry
// is in the table.
func TestKernelTable(t *testing.T) {
	entries := ptxEntries(t)
	seen := map[string]bool{}
	for _, k := range kernels {
		for _, sfx := range suffixes {
			key := k.module + "/" + k.name + sfx
			seen[key] = true
			types, ok := entries[key]
			if !ok {
				t.Errorf("%s: no such entry in the PTX", key)
				continue
			}
			if len(types) != len(k.params) {
				t.Errorf("%s: PTX has %d parameters %v, table lists %d %v", key, len(types), types, len(k.params), k.params)
				continue
			}
			for i, p := range k.params {
				want := "u64"
				if strings.HasSuffix(p, ".") {
					want = "f64"
				}
				if types[i] != want && !(want == "u64" && (types[i] == "s64" || types[i] == "b64")) {
					t.Errorf("%s: parameter %d (%s) is .%s in the PTX, want .%s", key, i, p, types[i], want)
				}
			}
		}
	}
	for key := range entries {
		if !seen[key] {
			t.Errorf("PTX entry %s is not in the kernel table", key)
		}
	}
	if len(entries) != 2*len(kernels) {
		t.Errorf("%d PTX entries for %d kernels × 2 types", len(entries), len(kernels))
	}
}

func TestDescribe(t *testing.T) {
	got := describe(kUnary, "_f32", []uint64{7, 2, 0xdead, 0xbeef, 0xf00d, 3, f64(1.5), f64(-2)})
	want := "unary_f32(n=7 nd=2 op=3 a=1.5 b=-2)"
	if got != want {
		t.Errorf("describe = %q, want %q", got, want)
	}
	if s := fmt.Sprint(describe(kFill, "_f64", []uint64{0, 0, 0, 0, f64(0)})); !strings.HasPrefix(s, "fill_f64(n=0") {
		t.Errorf("describe = %q", s)
	}
}
