package images

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Domains is a dataset root that holds one folder per domain (PACS:
// art_painting, cartoon, photo, sketch; ImageNet-Sketch: imagenet,
// sketch), each an ImageFolder tree of the same classes.
type Domains struct {
	Root    string
	Classes []string // the class folders' names, by index, the same in every domain
	List    []*Domain
	// Skipped lists the split lists' entries left out with
	// DomainOptions.Skip: "list:line: why".
	Skipped []string
	// Sums maps each domain's name to the SHA-256 of its lines of the
	// manifest (nil with DomainOptions.NoManifest): what a study's records
	// are keyed by.
	Sums map[string]string
}

// Domain is one domain of a Domains root.
type Domain struct {
	Name string
	Data *Dataset // Folder(Root/Name), paths relative to Root/Name
	// Splits maps each of SplitNames to the images of the domain's split
	// list (indices into Data.Paths, in the list's order), nil when the
	// root has no split lists.
	Splits map[string][]int
}

// SplitNames are PACS's official splits: <domain>_<split>_kfold.txt.
var SplitNames = []string{"train", "crossval", "test"}

// ManifestName is the manifest's file name in the root (by default).
const ManifestName = "ecl-manifest.txt"

// manifestHeader is the manifest's first line.
const manifestHeader = "# ecl images manifest 1: sha256 size path"

// DomainOptions are OpenDomains's settings.
type DomainOptions struct {
	// Manifest is the manifest file, written when absent and checked when
	// present (Root/ManifestName when empty); NoManifest neither writes
	// nor checks one.
	Manifest   string
	NoManifest bool
	// Lists is the folder of PACS's split lists (the root when empty).
	Lists string
	// Skip leaves out a split list's entries that name no image of the
	// domain (counted in Domains.Skipped) instead of failing.
	Skip bool
	// Workers hash the files at once (GOMAXPROCS when ≤ 0).
	Workers int
}

// OpenDomains lists the domains under root: every folder in it is a
// domain, read with Folder; every domain must hold the same class folders
// (an error names the domain that lacks one). When the split lists
// <domain>_{train,crossval,test}_kfold.txt are in opt.Lists (lines
// "art_painting/dog/pic_225.jpg 1": a path under root, a label from 1),
// each domain's Splits are read from them; the lists are all there or
// none. Unless opt.NoManifest, every image's size and SHA-256 are written
// to the manifest on the first call and checked against it afterwards: an
// image changed, added or removed since is an error naming it.
func OpenDomains(root string, opt DomainOptions) (*Domains, error) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("images: domains: %w", err)
	}
	ds := &Domains{Root: root}
	for _, e := range ents {
		if !isDir(filepath.Join(root, e.Name()), e) || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		d, err := Folder(filepath.Join(root, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("images: domain %s: %w", e.Name(), err)
		}
		ds.List = append(ds.List, &Domain{Name: e.Name(), Data: d})
	}
	if len(ds.List) == 0 {
		return nil, fmt.Errorf("images: %s has no domain folders (want one folder per domain, each with one folder per class)", root)
	}
	if err := ds.sameClasses(); err != nil {
		return nil, err
	}
	if err := ds.readLists(opt); err != nil {
		return nil, err
	}
	if !opt.NoManifest {
		m := opt.Manifest
		if m == "" {
			m = filepath.Join(root, ManifestName)
		}
		if err := ds.manifest(m, opt.Workers); err != nil {
			return nil, err
		}
	}
	return ds, nil
}

// Domain is the domain of that name, or nil.
func (ds *Domains) Domain(name string) *Domain {
	for _, d := range ds.List {
		if d.Name == name {
			return d
		}
	}
	return nil
}

// Names are the domains' names, sorted.
func (ds *Domains) Names() []string {
	names := make([]string, len(ds.List))
	for i, d := range ds.List {
		names[i] = d.Name
	}
	return names
}

// sameClasses sets Classes, checking that every domain has the same.
func (ds *Domains) sameClasses() error {
	var all []string
	for _, d := range ds.List {
		all = append(all, d.Data.Classes...)
	}
	slices.Sort(all)
	all = slices.Compact(all)
	for _, d := range ds.List {
		for _, c := range all {
			if _, found := slices.BinarySearch(d.Data.Classes, c); !found {
				var have []string
				for _, o := range ds.List {
					if slices.Contains(o.Data.Classes, c) {
						have = append(have, o.Name)
					}
				}
				return fmt.Errorf("images: domain %s has no class folder %s (%s has it): every domain must hold the same classes", filepath.Join(ds.Root, d.Name), c, strings.Join(have, ", "))
			}
		}
	}
	ds.Classes = all
	return nil
}

// listPath is domain's split list in dir.
func listPath(dir, domain, split string) string {
	return filepath.Join(dir, domain+"_"+split+"_kfold.txt")
}

// readLists reads the split lists, when there are any.
func (ds *Domains) readLists(opt DomainOptions) error {
	dir := opt.Lists
	if dir == "" {
		dir = ds.Root
	}
	var present, absent []string
	for _, d := range ds.List {
		for _, s := range SplitNames {
			p := listPath(dir, d.Name, s)
			if _, err := os.Stat(p); err == nil {
				present = append(present, p)
			} else {
				absent = append(absent, p)
			}
		}
	}
	switch {
	case len(present) == 0:
		if opt.Lists != "" {
			return fmt.Errorf("images: no split list <domain>_{%s}_kfold.txt in %s", strings.Join(SplitNames, ","), dir)
		}
		return nil
	case len(absent) > 0:
		return fmt.Errorf("images: split list %s is missing (%s is there): the lists are all there or none", absent[0], present[0])
	}
	for _, d := range ds.List {
		index := make(map[string]int, d.Data.Len())
		for i, p := range d.Data.Paths {
			index[d.Name+"/"+p] = i
		}
		d.Splits = map[string][]int{}
		for _, s := range SplitNames {
			idx, skipped, err := readList(listPath(dir, d.Name, s), index, d.Data, opt.Skip)
			if err != nil {
				return err
			}
			d.Splits[s] = idx
			ds.Skipped = append(ds.Skipped, skipped...)
		}
	}
	return nil
}

// readList reads one split list: lines "path label", the path under the
// root, the label the class's index + 1. index maps the domain's paths
// (under the root) to their images in d.
func readList(file string, index map[string]int, d *Dataset, skip bool) (idx []int, skipped []string, err error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, nil, fmt.Errorf("images: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		where := fmt.Sprintf("%s:%d", file, line)
		cut := strings.LastIndexAny(text, " \t")
		if cut < 0 {
			return nil, nil, fmt.Errorf("images: %s: %q, want \"path label\"", where, text)
		}
		p, labelText := path.Clean(strings.TrimSpace(text[:cut])), text[cut+1:]
		label, err := strconv.Atoi(labelText)
		if err != nil || label < 1 || label > len(d.Classes) {
			return nil, nil, fmt.Errorf("images: %s: label %q, want 1 to %d", where, labelText, len(d.Classes))
		}
		i, ok := index[p]
		if !ok {
			if !skip {
				return nil, nil, fmt.Errorf("images: %s: %s is not an image of the domain's folder (missing, or unreadable: %s)", where, p, strings.Join(Extensions, ", "))
			}
			skipped = append(skipped, where+": no image "+p)
			continue
		}
		if want := d.Labels[i] + 1; label != want {
			return nil, nil, fmt.Errorf("images: %s: %s has label %d, but its class folder %s is class %d", where, p, label, d.Classes[d.Labels[i]], want)
		}
		if len(idx) >= MaxFiles {
			return nil, nil, fmt.Errorf("images: %s: more than %d lines", file, MaxFiles)
		}
		idx = append(idx, i)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("images: %s: line %d: %w", file, line+1, err)
	}
	return idx, skipped, nil
}

// ManifestError is an image that differs from the manifest.
type ManifestError struct {
	Manifest, Path string // Path under the root
	Problem        string
}

func (e *ManifestError) Error() string {
	return fmt.Sprintf("images: %s %s since the manifest %s was written (delete the manifest to accept the files as they are now)", e.Path, e.Problem, e.Manifest)
}

// ErrManifest is what a *ManifestError matches with errors.Is.
var ErrManifest = errors.New("images: the images differ from the manifest")

func (e *ManifestError) Is(target error) bool { return target == ErrManifest }
