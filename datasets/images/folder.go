package images

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Extensions are the file endings read as images (compared in lower
// case). torchvision's ImageFolder also lists .ppm, .bmp, .pgm, .tif,
// .tiff and .webp, which Go's standard library does not decode; Folder
// and Flat list such files in Dataset.Unreadable rather than leave them
// out silently.
var Extensions = []string{".jpg", ".jpeg", ".png"}

// otherImages are torchvision's other image extensions.
var otherImages = []string{".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp"}

// MaxFiles bounds the images a folder may hold.
const MaxFiles = 1 << 26

// Dataset is a list of image files, with class labels for a Folder.
type Dataset struct {
	Root    string
	Paths   []string // relative to Root, with forward slashes
	Labels  []int    // nil for a flat folder
	Classes []string // the class folders' names, by index; nil for a flat folder
	// Unreadable lists, relative to Root, the files torchvision would
	// read as images but Go's standard library cannot (.bmp, .tif,
	// .webp, …); they are not in Paths.
	Unreadable []string
}

// Len is the number of images.
func (d *Dataset) Len() int { return len(d.Paths) }

// File is image i's path on disk.
func (d *Dataset) File(i int) string { return filepath.Join(d.Root, filepath.FromSlash(d.Paths[i])) }

// Folder lists root in torchvision's ImageFolder convention: every
// subfolder is a class, indexed in sorted order of the names; its images
// are those under it (symbolic links followed), by directory in sorted
// order of the directory's path and by name within a directory, as
// torchvision's make_dataset orders them. Files directly in root are
// ignored, as torchvision ignores them; a class without images is an
// error, as it is in torchvision.
func Folder(root string) (*Dataset, error) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("images.Folder: %w", err)
	}
	d := &Dataset{Root: root, Classes: []string{}}
	for _, e := range ents {
		if isDir(filepath.Join(root, e.Name()), e) {
			d.Classes = append(d.Classes, e.Name())
		}
	}
	slices.Sort(d.Classes)
	if len(d.Classes) == 0 {
		return nil, fmt.Errorf("images.Folder: %s has no class folders", root)
	}
	for k, class := range d.Classes {
		files, other, err := walk(root, class)
		if err != nil {
			return nil, err
		}
		d.Unreadable = append(d.Unreadable, other...)
		if len(files)+len(other) == 0 {
			return nil, fmt.Errorf("images.Folder: class folder %s has no images (%s)", filepath.Join(root, class), strings.Join(Extensions, ", "))
		}
		for _, f := range files {
			d.Paths = append(d.Paths, f)
			d.Labels = append(d.Labels, k)
		}
		if len(d.Paths) > MaxFiles {
			return nil, fmt.Errorf("images.Folder: %s holds more than %d images", root, MaxFiles)
		}
	}
	return d, nil
}

// Flat lists every image under root, searched recursively (symbolic links
// followed), in sorted order of the paths relative to root; it has no
// labels.
func Flat(root string) (*Dataset, error) {
	files, other, err := walk(root, "")
	if err != nil {
		return nil, err
	}
	if len(files)+len(other) == 0 {
		return nil, fmt.Errorf("images.Flat: no images (%s) under %s", strings.Join(Extensions, ", "), root)
	}
	slices.Sort(files)
	slices.Sort(other)
	return &Dataset{Root: root, Paths: files, Unreadable: other}, nil
}

// HasClasses reports whether root looks like an ImageFolder tree: no
// image directly in it, and at least one subfolder.
func HasClasses(root string) (bool, error) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return false, fmt.Errorf("images: %w", err)
	}
	dirs := 0
	for _, e := range ents {
		switch {
		case isDir(filepath.Join(root, e.Name()), e):
			dirs++
		case isImage(e.Name()):
			return false, nil
		}
	}
	return dirs > 0, nil
}

// isDir reports whether the entry is a directory or a link to one.
func isDir(path string, e os.DirEntry) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&os.ModeSymlink == 0 {
		return false
	}
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// isImage reports whether name has one of Extensions.
func isImage(name string) bool {
	return slices.Contains(Extensions, strings.ToLower(filepath.Ext(name)))
}

// walk lists the images under root/sub, relative to root with forward
// slashes, directory by directory in sorted order of the directories'
// paths and by name within each, following symbolic links (a directory
// reached twice through links is read once); and, in the same order, the
// files of torchvision's other image formats.
func walk(root, sub string) (files, other []string, err error) {
	type dir struct {
		rel          string
		files, other []string
	}
	var dirs []dir
	seen := map[string]bool{}
	var visit func(rel string) error
	visit = func(rel string) error {
		full := filepath.Join(root, filepath.FromSlash(rel))
		real, err := filepath.EvalSymlinks(full)
		if err != nil {
			return fmt.Errorf("images: %w", err)
		}
		if seen[real] {
			return nil
		}
		seen[real] = true
		ents, err := os.ReadDir(full)
		if err != nil {
			return fmt.Errorf("images: %w", err)
		}
		d := dir{rel: rel}
		var subs []string
		for _, e := range ents {
			name := e.Name()
			child := name
			if rel != "" {
				child = rel + "/" + name
			}
			switch {
			case isDir(filepath.Join(full, name), e):
				subs = append(subs, child)
			case isImage(name):
				d.files = append(d.files, child)
			case slices.Contains(otherImages, strings.ToLower(filepath.Ext(name))):
				d.other = append(d.other, child)
			}
			if len(d.files)+len(d.other) > MaxFiles {
				return fmt.Errorf("images: %s holds more than %d images", full, MaxFiles)
			}
		}
		slices.Sort(d.files)
		slices.Sort(d.other)
		dirs = append(dirs, d)
		for _, s := range subs {
			if err := visit(s); err != nil {
				return err
			}
		}
		return nil
	}
	if err := visit(sub); err != nil {
		return nil, nil, err
	}
	slices.SortFunc(dirs, func(a, b dir) int { return strings.Compare(a.rel, b.rel) })
	for _, d := range dirs {
		files, other = append(files, d.files...), append(other, d.other...)
	}
	return files, other, nil
}
