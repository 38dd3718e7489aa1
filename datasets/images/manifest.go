package images

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/ecl-go/ecl/internal/atomicfile"
)

// entry is one image's line of a manifest.
type entry struct {
	sum  string // hex SHA-256
	size int64
}

// manifest writes the manifest file of ds's images when it is absent, and
// checks the images against it when it is there; it sets ds.Sums.
func (ds *Domains) manifest(file string, workers int) error {
	var paths []string // under the root, with forward slashes
	for _, d := range ds.List {
		for _, p := range d.Data.Paths {
			paths = append(paths, d.Name+"/"+p)
		}
	}
	now, err := hashFiles(ds.Root, paths, workers)
	if err != nil {
		return err
	}
	ds.Sums = map[string]string{}
	for _, d := range ds.List {
		h := sha256.New()
		for _, p := range d.Data.Paths {
			e := now[d.Name+"/"+p]
			fmt.Fprintf(h, "%s %d %s/%s\n", e.sum, e.size, d.Name, p)
		}
		ds.Sums[d.Name] = hex.EncodeToString(h.Sum(nil))
	}
	was, err := readManifest(file)
	if errors.Is(err, fs.ErrNotExist) {
		return atomicfile.Write(file, func(w io.Writer) error {
			bw := bufio.NewWriter(w)
			fmt.Fprintln(bw, manifestHeader)
			for _, p := range paths {
				fmt.Fprintf(bw, "%s %d %s\n", now[p].sum, now[p].size, p)
			}
			return bw.Flush()
		})
	}
	if err != nil {
		return err
	}
	for _, p := range paths {
		e, ok := was[p]
		switch {
		case !ok:
			return &ManifestError{file, p, "was added"}
		case e.size != now[p].size:
			return &ManifestError{file, p, fmt.Sprintf("has changed (%d bytes, %d in the manifest)", now[p].size, e.size)}
		case e.sum != now[p].sum:
			return &ManifestError{file, p, "has changed (its SHA-256 differs)"}
		}
	}
	if len(was) > len(now) {
		for p := range was {
			if _, ok := now[p]; !ok {
				return &ManifestError{file, p, "was removed"}
			}
		}
	}
	return nil
}

// hashFiles is the size and SHA-256 of each of paths (under root), read
// on workers goroutines (GOMAXPROCS when ≤ 0).
func hashFiles(root string, paths []string, workers int) (map[string]entry, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	entries := make([]entry, len(paths))
	errs := make([]error, len(paths))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, len(paths)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				entries[i], errs[i] = hashFile(filepath.Join(root, filepath.FromSlash(paths[i])))
			}
		}()
	}
	for i := range paths {
		next <- i
	}
	close(next)
	wg.Wait()
	out := make(map[string]entry, len(paths))
	for i, p := range paths {
		if errs[i] != nil {
			return nil, &Error{Path: filepath.Join(root, filepath.FromSlash(p)), Err: errs[i]}
		}
		out[p] = entries[i]
	}
	return out, nil
}

// hashFile is the file's size and SHA-256.
func hashFile(path string) (entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return entry{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return entry{}, err
	}
	return entry{hex.EncodeToString(h.Sum(nil)), n}, nil
}

// readManifest reads a manifest's lines "sha256 size path" after its
// header.
func readManifest(file string) (map[string]entry, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() || sc.Text() != manifestHeader {
		return nil, fmt.Errorf("images: %s is not a manifest of ecl's (its first line is not %q)", file, manifestHeader)
	}
	out := map[string]entry{}
	for line := 2; sc.Scan(); line++ {
		fields := strings.SplitN(sc.Text(), " ", 3)
		if len(fields) != 3 {
			return nil, fmt.Errorf("images: manifest %s:%d: want \"sha256 size path\"", file, line)
		}
		size, err := strconv.ParseInt(fields[1], 10, 64)
		if _, herr := hex.DecodeString(fields[0]); err != nil || herr != nil || len(fields[0]) != 2*sha256.Size || size < 0 {
			return nil, fmt.Errorf("images: manifest %s:%d: want \"sha256 size path\"", file, line)
		}
		if len(out) >= MaxFiles {
			return nil, fmt.Errorf("images: manifest %s: more than %d files", file, MaxFiles)
		}
		out[fields[2]] = entry{fields[0], size}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("images: manifest %s: %w", file, err)
	}
	return out, nil
}
