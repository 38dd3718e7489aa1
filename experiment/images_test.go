package experiment

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/datasets/images/imagestest"
	"github.com/ecl-go/ecl/ecl"
)

// sameRows fails unless a and b have the same methods and scores.
func sameRows(t *testing.T, a, b []Result) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%d rows, then %d", len(a), len(b))
	}
	for i := range a {
		if a[i].Method != b[i].Method || a[i].Target != b[i].Target || a[i].Source != b[i].Source {
			t.Errorf("row %d: %s %+v, then %s %+v", i, a[i].Method, a[i].Target, b[i].Method, b[i].Target)
		}
	}
}

// tinyImages is a one-run study of lenet5 →photo on dir.
func tinyImages(dir string) ImagesConfig {
	return ImagesConfig{
		Dir: dir, Arch: "lenet5", Split: ImagesSplit{Target: "photo"},
		Study:    Study{Paradigms: []ecl.Paradigm{ecl.TopLabel}, Methods: []string{"ts", "pseudocal"}, Control: true, Runs: 1, Seed: 1},
		Training: Training{Epochs: 2, Batch: 5, LR: 1e-2},
	}
}

// The image study trains a small network on the merged sources and
// reports every row on the target, the same from the same seed; its
// records are keyed by the domains' manifest.
func TestImagesSmallNetwork(t *testing.T) {
	dir := imagestest.TempDomains(t, 8)
	c := tinyImages(dir)
	c.Methods = []string{"ts"}
	a, err := RunImages(c)
	if err != nil {
		t.Fatal(err)
	}
	methods := map[string]bool{}
	for _, r := range a {
		methods[r.Method.String()] = true
		if r.Shift.String() != "→photo" || !strings.HasPrefix(r.Setup, "lenet5 art+sketch→photo n=") {
			t.Errorf("%s: shift %s, setup %q", r.Method, r.Shift, r.Setup)
		}
	}
	for _, m := range []string{"Uncal", "CE-finetune", "ECL-toplabel", "TS"} {
		if !methods[m] {
			t.Errorf("no %s row in %v", m, methods)
		}
	}
	b, err := RunImages(c)
	if err != nil {
		t.Fatal(err)
	}
	sameRows(t, a, b)
	data, err := c.open()
	if err != nil {
		t.Fatal(err)
	}
	if len(data.sums) != 3 || data.sums["photo"] == "" {
		t.Errorf("data checksums %v", data.sums)
	}
}

// A frozen torchvision backbone (the tiny ResNet of nn's fixtures): its
// features are computed once per domain into the cache and read from it
// by the next study.
func TestImagesFrozenBackbone(t *testing.T) {
	dir := imagestest.TempDomains(t, 6)
	c := tinyImages(dir)
	c.Arch, c.Weights, c.FeatureCache = "resnet_tiny", "../nn/testdata/resnet_tiny.pth", t.TempDir()
	c.Methods, c.Control = []string{"ts"}, false
	var logged []string
	c.Log = func(format string, args ...any) { logged = append(logged, fmt.Sprintf(format, args...)) }
	a, err := RunImages(c)
	if err != nil {
		t.Fatal(err)
	}
	cached, _ := filepath.Glob(filepath.Join(c.FeatureCache, "*.npz"))
	if len(cached) != 3 {
		t.Fatalf("feature cache %v, want one file per domain", cached)
	}
	if !strings.Contains(strings.Join(logged, "\n"), "features of photo") {
		t.Errorf("no extraction logged: %q", logged)
	}
	logged = nil
	b, err := RunImages(c)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.Join(logged, "\n"), "features of") {
		t.Errorf("features computed again: %q", logged)
	}
	sameRows(t, a, b)
	if len(a) != 3 {
		t.Errorf("%d rows, want Uncal, TS and ECL-toplabel", len(a))
	}
	c.Weights = ""
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "Weights") {
		t.Errorf("no weights: %v", err)
	}
}

// A truncated JPEG stops the study with an error naming it; with Skip it
// is left out and counted.
func TestImagesBadFile(t *testing.T) {
	dir := imagestest.TempDomains(t, 6)
	bad := filepath.Join(dir, "sketch", "dog", "img-00.jpg")
	b, err := os.ReadFile(bad)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	c := tinyImages(dir)
	c.Methods, c.Control, c.Epochs = nil, false, 1
	if _, err := RunImages(c); err == nil || !strings.Contains(err.Error(), bad) {
		t.Fatalf("truncated JPEG: %v", err)
	}
	c.Skip = true
	var logged []string
	c.Log = func(format string, args ...any) { logged = append(logged, fmt.Sprintf(format, args...)) }
	if _, err := RunImages(c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(logged, "\n"), "skipped 1 images") {
		t.Errorf("the skipped file is not counted: %q", logged)
	}
}

// With PACS's split lists the splits are the lists'.
func TestImagesSplitLists(t *testing.T) {
	dir := imagestest.TempDomains(t, 6)
	for _, d := range []string{"art", "photo", "sketch"} {
		lines := map[string]string{}
		for k, class := range []string{"dog", "horse"} {
			for i := range 6 {
				s := []string{"train", "train", "train", "train", "crossval", "test"}[i]
				ext := map[bool]string{true: "png", false: "jpg"}[i%2 == 1]
				lines[s] += fmt.Sprintf("%s/%s/img-%02d.%s %d\n", d, class, i, ext, k+1)
			}
		}
		for s, text := range lines {
			if err := os.WriteFile(filepath.Join(dir, d+"_"+s+"_kfold.txt"), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	c := tinyImages(dir)
	data, err := c.open()
	if err != nil {
		t.Fatal(err)
	}
	src, val, u, test, _ := c.task(data, 1)
	if src.Len() != 16 || val.Len() != 4 || u.Len() != 8 || test.Len() != 4 {
		t.Errorf("splits of %d, %d, %d, %d images, want the lists' 16, 4, 8, 4", src.Len(), val.Len(), u.Len(), test.Len())
	}
	if data.sums["photo_test_kfold.txt"] == "" {
		t.Errorf("the lists are not in the checksums: %v", data.sums)
	}
}

// With Cache the rows are those without it; with Augment the base network
// trains on the training transform's crops, giving other rows, the same
// again from the seed with any number of workers and with or without
// Cache; a frozen backbone refuses both settings.
func TestImagesAugmentAndCache(t *testing.T) {
	dir := imagestest.TempDomains(t, 6)
	c := tinyImages(dir)
	c.Methods = []string{"ts"}
	run := func(c ImagesConfig) []Result {
		t.Helper()
		rows, err := RunImages(c)
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	plain := run(c)
	c.Cache = t.TempDir()
	sameRows(t, run(c), plain)
	if m, _ := filepath.Glob(filepath.Join(c.Cache, "*-side28-*", "shard-000000.bin")); len(m) != 3 {
		t.Errorf("caches %v, want one per domain", m)
	}
	c.Augment = true
	augmented := run(c)
	if m, _ := filepath.Glob(filepath.Join(c.Cache, "*-bound115-*", "shard-000000.bin")); len(m) != 2 {
		t.Errorf("training caches %v, want one per source domain", m)
	}
	if len(augmented) != len(plain) || !slices.ContainsFunc(augmented, func(r Result) bool { return r.Target != plain[0].Target }) {
		t.Error("the augmented base network's rows are those without augmentation")
	}
	c.Cache = ""
	for _, workers := range []int{1, 3} {
		c.Workers = workers
		sameRows(t, run(c), augmented)
	}
	o := ImagesSplit{Target: "photo", MaxSource: 3, Seed: 2}
	with, _ := json.Marshal(augmentedSplit{o, false})
	without, _ := json.Marshal(o)
	if string(with) != string(without) {
		t.Errorf("the base cache's key of a split without Augment changed: %s, was %s", with, without)
	}
	frozen := tinyImages(dir)
	frozen.Arch, frozen.Weights = "resnet_tiny", "../nn/testdata/resnet_tiny.pth"
	frozen.Augment = true
	if err := frozen.Validate(); err == nil || !strings.Contains(err.Error(), "Augment") {
		t.Errorf("augmenting a frozen backbone: %v", err)
	}
	frozen.Augment, frozen.Cache = false, t.TempDir()
	if err := frozen.Validate(); err == nil || !strings.Contains(err.Error(), "Cache") {
		t.Errorf("an image cache for a frozen backbone: %v", err)
	}
}
