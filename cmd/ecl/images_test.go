package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/datasets/images/imagestest"
)

// ecl images killed in its base stage and run again ends with the tables
// and files of an uninterrupted run; ecl report reads its records.
func TestImagesKilledAndResumed(t *testing.T) {
	bin := buildECL(t)
	data := imagestest.TempDomains(t, 10)
	args := []string{"images", "-data", data, "-target", "photo", "-arch", "lenet5", "-epochs", "6", "-aux-epochs", "2", "-ecl-epochs", "2",
		"-batch", "5", "-lr", "0.01", "-methods", "ts", "-paradigms", "toplabel", "-runs", "1", "-diagram-dpi", "40", "-out", "out"}
	want, _, wantFiles := uninterrupted(t, bin, args...)
	if !strings.Contains(string(want), "images →photo, lenet5") || !strings.Contains(string(want), "ECL-toplabel") {
		t.Fatalf("tables:\n%s", want)
	}
	dir := t.TempDir()
	killAfter(t, bin, args, dir, "base epoch 3/6")
	log := resumeMatches(t, "killed after base epoch 3/6", bin, args, dir, want, wantFiles)
	if !strings.Contains(log, "base stage resumed after epoch") {
		t.Errorf("not resumed:\n%s", log)
	}
	report, err := exec.Command(bin, "report", filepath.Join(dir, "out")).CombinedOutput()
	if err != nil || !strings.Contains(string(report), "→photo") {
		t.Errorf("ecl report: %v\n%s", err, report)
	}
}

// ecl images -augment -cache: killed in the base stage and run again, it
// reads the cache the killed run built and ends with the tables and files
// of an uninterrupted run; without -cache it prints the same tables, and
// without -augment others.
func TestImagesAugmentCacheKilledAndResumed(t *testing.T) {
	bin := buildECL(t)
	data := imagestest.TempDomains(t, 10)
	plain := []string{"images", "-data", data, "-target", "photo", "-arch", "lenet5", "-epochs", "6", "-aux-epochs", "2", "-ecl-epochs", "2",
		"-batch", "5", "-lr", "0.01", "-methods", "ts", "-paradigms", "toplabel", "-runs", "1", "-diagram-dpi", "40", "-out", "out"}
	augment := append(slices.Clone(plain), "-augment")
	args := append(slices.Clone(augment), "-cache", "cache")
	want, _, wantFiles := uninterrupted(t, bin, args...)
	dir := t.TempDir()
	killAfter(t, bin, args, dir, "base epoch 3/6")
	log := resumeMatches(t, "killed after base epoch 3/6 with -augment -cache", bin, args, dir, want, wantFiles)
	if !strings.Contains(log, "base stage resumed after epoch") || strings.Contains(log, "decoding images") {
		t.Errorf("not resumed, or the cache built again:\n%s", log)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "cache", "*", "shard-*.bin")); len(m) != 5 {
		t.Errorf("cache shards %v, want 3 domains at 28 and 2 sources bounded to 115", m)
	}
	noCache, _, _ := uninterrupted(t, bin, augment...)
	if digitsTable(noCache) != digitsTable(want) {
		t.Errorf("without -cache, tables differ:\n%s\nwant\n%s", noCache, want)
	}
	notAugmented, _, _ := uninterrupted(t, bin, plain...)
	if digitsTable(notAugmented) == digitsTable(want) {
		t.Error("without -augment, the same tables")
	}
}

// With a frozen torchvision backbone (the tiny ResNet of nn's fixtures,
// random weights) the features go to -out/features, one file per domain.
func TestImagesFrozenBackbone(t *testing.T) {
	withTinyArchs(t)
	data := imagestest.TempDomains(t, 6)
	out := filepath.Join(t.TempDir(), "out")
	err := runImages([]string{"-data", data, "-target", "sketch", "-arch", "resnet_tiny", "-weights", "../../nn/testdata/resnet_tiny.pth",
		"-epochs", "2", "-batch", "5", "-methods", "ts", "-paradigms", "toplabel", "-runs", "1", "-quiet", "-diagram-dpi", "40", "-out", out})
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := filepath.Glob(filepath.Join(out, "features", "*.npz")); len(m) != 3 {
		t.Errorf("features %v, want one file per domain", m)
	}
	if _, err := os.Stat(filepath.Join(out, "results.json")); err != nil {
		t.Error(err)
	}
}

// Bad data and settings are errors naming what is wrong.
func TestImagesErrors(t *testing.T) {
	data := imagestest.TempDomains(t, 4)
	base := []string{"-data", data, "-epochs", "1", "-batch", "4", "-methods", "none", "-paradigms", "toplabel", "-runs", "1", "-quiet", "-out", ""}
	for _, c := range []struct {
		name  string
		setup func()
		args  []string
		want  []string
	}{
		{"no target", nil, nil, []string{"-data and -target are required"}},
		{"unknown target", nil, []string{"-target", "cartoon"}, []string{"no domain cartoon", "art, photo, sketch"}},
		{"weights for a small network", nil, []string{"-target", "photo", "-weights", "x.pth"}, []string{"-weights x.pth", "trained from scratch"}},
		{"no weights", nil, []string{"-target", "photo", "-arch", "resnet50"}, []string{"-weights", "resnet50"}},
		{"fit that needs the frozen backbone", nil, []string{"-target", "photo", "-aux-fit", "plain,iw", "-ecl-whole"}, []string{"-aux-fit iw", "want plain when the whole network is fine-tuned"}},
		{"augmenting a frozen backbone", nil, []string{"-target", "photo", "-arch", "resnet50", "-weights", "x.pth", "-augment"}, []string{"-augment true", "computed once"}},
		{"an image cache for a frozen backbone", nil, []string{"-target", "photo", "-arch", "resnet50", "-weights", "x.pth", "-cache", "c"}, []string{"-cache c", "features are cached"}},
		{"unknown fit", nil, []string{"-target", "photo", "-aux-fit", "foo"}, []string{"-aux-fit foo", "want one of plain, iw, crossfit, pseudocal"}},
		{"changed file", func() {
			if err := os.WriteFile(filepath.Join(data, "art", "dog", "img-00.jpg"), []byte("changed"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, []string{"-target", "photo"}, []string{"art/dog/img-00.jpg has changed", "manifest"}},
		{"changed file, no manifest", nil, []string{"-target", "photo", "-no-manifest"}, []string{filepath.Join(data, "art", "dog", "img-00.jpg"), "not a JPEG or PNG"}},
		{"missing class", func() {
			if err := os.RemoveAll(filepath.Join(data, "sketch", "horse")); err != nil {
				t.Fatal(err)
			}
		}, []string{"-target", "photo", "-no-manifest"}, []string{"domain " + filepath.Join(data, "sketch"), "no class folder horse"}},
	} {
		if c.setup != nil {
			c.setup()
		}
		err := runImages(append(append([]string{}, base...), c.args...))
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not say %q", c.name, err, w)
			}
		}
	}
}
