package images_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/datasets/images"
	"github.com/ecl-go/ecl/datasets/images/imagestest"
)

// domains writes a root of the domains, each with 3 images of the classes
// dog and horse.
func domains(t *testing.T, names ...string) string {
	t.Helper()
	root := t.TempDir()
	if err := imagestest.Domains(root, names, []string{"dog", "horse"}, 3, 0); err != nil {
		t.Fatal(err)
	}
	return root
}

// wantError fails unless err says every one of parts.
func wantError(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one saying %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not say %q", err, p)
		}
	}
}

func TestOpenDomains(t *testing.T) {
	root := domains(t, "photo", "sketch")
	ds, err := images.OpenDomains(root, images.DomainOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ds.Names(), []string{"photo", "sketch"}) || !slices.Equal(ds.Classes, []string{"dog", "horse"}) {
		t.Fatalf("domains %v, classes %v", ds.Names(), ds.Classes)
	}
	if d := ds.Domain("sketch"); d == nil || d.Data.Len() != 6 || d.Splits != nil {
		t.Fatalf("sketch: %+v", d)
	}
	if _, err := os.Stat(filepath.Join(root, images.ManifestName)); err != nil {
		t.Fatalf("no manifest written: %v", err)
	}
	again, err := images.OpenDomains(root, images.DomainOptions{})
	if err != nil {
		t.Fatalf("checked against its own manifest: %v", err)
	}
	if fmt.Sprint(again.Sums) != fmt.Sprint(ds.Sums) || len(ds.Sums) != 2 {
		t.Errorf("sums %v, then %v", ds.Sums, again.Sums)
	}
}

// A file changed, added or removed since the manifest was written is an
// error naming it; NoManifest reads the root as it is.
func TestOpenDomainsManifest(t *testing.T) {
	for _, c := range []struct {
		name, file, problem string
		change              func(path string) error
	}{
		{"changed", "photo/dog/img-00.jpg", "has changed", func(p string) error { return os.WriteFile(p, []byte("not the same"), 0o644) }},
		{"added", "photo/dog/img-09.jpg", "was added", func(p string) error { return os.WriteFile(p, []byte("new"), 0o644) }},
		{"removed", "sketch/horse/img-01.png", "was removed", os.Remove},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := domains(t, "photo", "sketch")
			if _, err := images.OpenDomains(root, images.DomainOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := c.change(filepath.Join(root, filepath.FromSlash(c.file))); err != nil {
				t.Fatal(err)
			}
			_, err := images.OpenDomains(root, images.DomainOptions{})
			wantError(t, err, c.file, c.problem, images.ManifestName)
			if !errors.Is(err, images.ErrManifest) {
				t.Errorf("%v is not ErrManifest", err)
			}
			if _, err := images.OpenDomains(root, images.DomainOptions{NoManifest: true}); err != nil {
				t.Errorf("without the manifest: %v", err)
			}
		})
	}
	root := domains(t, "photo")
	bad := filepath.Join(t.TempDir(), "m.txt")
	if err := os.WriteFile(bad, []byte("# ecl images manifest 1: sha256 size path\nzz 3 photo/dog/img-00.jpg\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := images.OpenDomains(root, images.DomainOptions{Manifest: bad})
	wantError(t, err, bad+":2")
}

// A domain without a class the others have, an empty domain, an empty
// class folder and a root without domains are errors naming them.
func TestOpenDomainsErrors(t *testing.T) {
	root := domains(t, "photo", "sketch")
	if err := os.RemoveAll(filepath.Join(root, "sketch", "horse")); err != nil {
		t.Fatal(err)
	}
	_, err := images.OpenDomains(root, images.DomainOptions{NoManifest: true})
	wantError(t, err, "domain "+filepath.Join(root, "sketch"), "no class folder horse", "photo has it")

	root = domains(t, "photo")
	if err := os.Mkdir(filepath.Join(root, "cartoon"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = images.OpenDomains(root, images.DomainOptions{NoManifest: true})
	wantError(t, err, "domain cartoon", "no class folders")

	if err := os.MkdirAll(filepath.Join(root, "cartoon", "dog"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = images.OpenDomains(root, images.DomainOptions{NoManifest: true})
	wantError(t, err, "domain cartoon", filepath.Join("cartoon", "dog"), "no images")

	_, err = images.OpenDomains(t.TempDir(), images.DomainOptions{})
	wantError(t, err, "no domain folders")
}

// writeLists writes PACS's split lists of the domains into dir: the
// first image of each class in test, the second in crossval, the rest in
// train; extra is added to photo's train list.
func writeLists(t *testing.T, dir string, ds *images.Domains, extra string) {
	t.Helper()
	for _, d := range ds.List {
		lines := map[string]string{}
		for i, p := range d.Data.Paths {
			s := []string{"test", "crossval", "train"}[min(i%3, 2)]
			lines[s] += fmt.Sprintf("%s/%s %d\n", d.Name, p, d.Data.Labels[i]+1)
		}
		if d.Name == "photo" {
			lines["train"] += extra
		}
		for _, s := range images.SplitNames {
			if err := os.WriteFile(filepath.Join(dir, d.Name+"_"+s+"_kfold.txt"), []byte(lines[s]), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestOpenDomainsSplitLists(t *testing.T) {
	root := domains(t, "photo", "sketch")
	ds, err := images.OpenDomains(root, images.DomainOptions{NoManifest: true})
	if err != nil {
		t.Fatal(err)
	}
	writeLists(t, root, ds, "")
	if ds, err = images.OpenDomains(root, images.DomainOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(ds.Domain("photo").Splits); got != "map[crossval:[1 4] test:[0 3] train:[2 5]]" {
		t.Errorf("photo's splits %s", got)
	}

	lists := t.TempDir()
	writeLists(t, lists, ds, "photo/dog/gone.jpg 1\n")
	_, err = images.OpenDomains(root, images.DomainOptions{Lists: lists})
	wantError(t, err, "photo_train_kfold.txt:3", "photo/dog/gone.jpg")
	skipped, err := images.OpenDomains(root, images.DomainOptions{Lists: lists, Skip: true})
	if err != nil || len(skipped.Skipped) != 1 || len(skipped.Domain("photo").Splits["train"]) != 2 {
		t.Fatalf("with Skip: %v, %+v", err, skipped)
	}

	writeLists(t, lists, ds, "photo/dog/img-00.jpg 2\n")
	_, err = images.OpenDomains(root, images.DomainOptions{Lists: lists})
	wantError(t, err, "photo_train_kfold.txt:3", "label 2", "class folder dog is class 1")
	writeLists(t, lists, ds, "photo/dog/img-00.jpg 0\n")
	_, err = images.OpenDomains(root, images.DomainOptions{Lists: lists})
	wantError(t, err, "photo_train_kfold.txt:3", `label "0"`)

	if err := os.Remove(filepath.Join(lists, "sketch_test_kfold.txt")); err != nil {
		t.Fatal(err)
	}
	_, err = images.OpenDomains(root, images.DomainOptions{Lists: lists})
	wantError(t, err, "sketch_test_kfold.txt is missing")
	_, err = images.OpenDomains(root, images.DomainOptions{Lists: t.TempDir()})
	wantError(t, err, "no split list")
}
