package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func gz(t *testing.T, b []byte, level int) []byte {
	var z bytes.Buffer
	w, err := gzip.NewWriterLevel(&z, level)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(b)
	w.Close()
	return z.Bytes()
}

// fixture is a server of two generated files and the table describing them:
// one/a.bin checked by SHA-256, two/b.gz by the MD5 of its content.
type fixture struct {
	srv   *httptest.Server
	files []File
	a, b  []byte // a.bin, and b.gz's content

	mu    sync.Mutex
	hits  int
	serve map[string]http.HandlerFunc // by path; nil entries serve the files
}

func newFixture(t *testing.T) *fixture {
	rng := rand.New(rand.NewPCG(1, 2))
	f := &fixture{a: make([]byte, 10000), b: make([]byte, 5000), serve: map[string]http.HandlerFunc{}}
	for i := range f.a {
		f.a[i] = byte(rng.IntN(256))
	}
	for i := range f.b {
		f.b[i] = byte(rng.IntN(16))
	}
	bgz := gz(t, f.b, gzip.BestCompression)
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.hits++
		h := f.serve[r.URL.Path]
		f.mu.Unlock()
		switch {
		case h != nil:
			h(w, r)
		case r.URL.Path == "/a.bin":
			w.Write(f.a)
		case r.URL.Path == "/b.gz":
			w.Write(bgz)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(f.srv.Close)
	sa, sb := sha256.Sum256(f.a), md5.Sum(f.b)
	f.files = []File{
		{Domain: "one", Name: "a.bin", URL: f.srv.URL + "/a.bin", Size: int64(len(f.a)), Hash: "sha256", Sum: hex.EncodeToString(sa[:])},
		{Domain: "two", Name: "b.gz", URL: f.srv.URL + "/b.gz", Size: int64(len(bgz)) + 100, Hash: "md5", Sum: hex.EncodeToString(sb[:]), Gunzip: true},
	}
	return f
}

// set makes the server answer path with h.
func (f *fixture) set(path string, h http.HandlerFunc) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.serve[path] = h
}

// requests is the number of requests served.
func (f *fixture) requests() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.hits
}

func (f *fixture) fetch(dir string, force bool, domains ...string) (string, error) {
	var progress bytes.Buffer
	err := Fetch(context.Background(), dir, domains, Options{Client: f.srv.Client(), Files: f.files, Force: force, Progress: &progress})
	return progress.String(), err
}

// entries lists the files under dir (relative paths), temporary ones included.
func entries(t *testing.T, dir string) []string {
	var names []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			names = append(names, rel)
		}
		return err
	})
	return names
}

func TestFetch(t *testing.T) {
	f := newFixture(t)
	dir := t.TempDir()
	progress, err := f.fetch(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "one/a.bin"))
	bgz, _ := os.ReadFile(filepath.Join(dir, "two/b.gz"))
	z, err := gzip.NewReader(bytes.NewReader(bgz))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.ReadFrom(z)
	if !bytes.Equal(a, f.a) || !bytes.Equal(b.Bytes(), f.b) {
		t.Error("downloaded files differ from the served ones")
	}
	if got := entries(t, dir); strings.Join(got, " ") != "one/a.bin two/b.gz" {
		t.Errorf("files %v, want one/a.bin and two/b.gz only", got)
	}
	if !strings.Contains(progress, "one/a.bin: 10000 bytes") || !strings.Contains(progress, "sha256 verified") {
		t.Errorf("progress %q", progress)
	}
	// Present with the right checksum: no request.
	hits := f.requests()
	if progress, err = f.fetch(dir, false); err != nil || f.requests() != hits || !strings.Contains(progress, "one/a.bin: present, sha256 verified") {
		t.Errorf("second fetch: %d requests, error %v, progress %q", f.requests()-hits, err, progress)
	}
	// The content of a .gz is what is checked: another compression of it
	// (MNIST's training images as re-compressed elsewhere) is accepted.
	other := gz(t, f.b, gzip.BestSpeed)
	f.set("/b.gz", func(w http.ResponseWriter, r *http.Request) { w.Write(other) })
	dir2 := t.TempDir()
	if _, err := f.fetch(dir2, false, "two"); err != nil {
		t.Fatal(err)
	}
	if got := entries(t, dir2); len(got) != 1 || got[0] != "two/b.gz" {
		t.Errorf("domain two only: files %v", got)
	}
}

func TestFetchPresentWrong(t *testing.T) {
	f := newFixture(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "one/a.bin")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte("stale"), 0o644)
	_, err := f.fetch(dir, false, "one")
	if err == nil || !strings.Contains(err.Error(), path+" is present but its sha256 is ") || !strings.Contains(err.Error(), "want "+f.files[0].Sum) {
		t.Errorf("error %v, want one naming %s and both checksums", err, path)
	}
	if b, _ := os.ReadFile(path); string(b) != "stale" {
		t.Error("the present file was changed without force")
	}
	if _, err := f.fetch(dir, true, "one"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, f.a) {
		t.Error("force did not replace the wrong file")
	}
}

func TestFetchRefused(t *testing.T) {
	corrupt := bytes.Repeat([]byte{7}, 10000)
	for name, c := range map[string]struct {
		path  string
		serve http.HandlerFunc
		want  string
	}{
		"corrupt": {"/a.bin", func(w http.ResponseWriter, r *http.Request) { w.Write(corrupt) }, "10000 bytes with sha256 "},
		"truncated": {"/a.bin", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "10000")
			w.Write(corrupt[:4000])
		}, "unexpected EOF"},
		"declared oversize": {"/a.bin", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", strconv.Itoa(10001))
			w.Write(append(corrupt, 0))
		}, "response of 10001 bytes, more than the expected 10000"},
		"streamed oversize": {"/a.bin", func(w http.ResponseWriter, r *http.Request) {
			for range 3 {
				w.Write(corrupt[:4000])
				w.(http.Flusher).Flush()
			}
		}, "response larger than the expected 10000 bytes"},
		"404":      {"/a.bin", http.NotFound, "404 Not Found"},
		"not gzip": {"/b.gz", func(w http.ResponseWriter, r *http.Request) { w.Write(corrupt[:100]) }, "gzip: invalid header"},
	} {
		f := newFixture(t)
		f.set(c.path, c.serve)
		dir := t.TempDir()
		_, err := f.fetch(dir, false)
		url := f.srv.URL + c.path
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), url) || !strings.Contains(err.Error(), dir) {
			t.Errorf("%s: error %v, want one naming the file, %s and %q", name, err, url, c.want)
		}
		// Nothing under the failed file's name, no temporary file left;
		// the other file was still fetched.
		ok := "one/a.bin"
		if c.path == "/a.bin" {
			ok = "two/b.gz"
		}
		if got := entries(t, dir); len(got) != 1 || got[0] != ok {
			t.Errorf("%s: files %v, want %s only", name, got, ok)
		}
	}
}

func TestFetchBadRequest(t *testing.T) {
	f := newFixture(t)
	if _, err := f.fetch(t.TempDir(), false, "one", "three"); err == nil || !strings.Contains(err.Error(), `unknown data set "three" (have one, two)`) {
		t.Errorf("unknown domain: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	err := Fetch(ctx, dir, nil, Options{Client: f.srv.Client(), Files: f.files})
	if !errors.Is(err, context.Canceled) || len(entries(t, dir)) != 0 || f.requests() != 0 {
		t.Errorf("cancelled: error %v, %d requests, files %v", err, f.requests(), entries(t, dir))
	}
}

func TestDir(t *testing.T) {
	t.Setenv(EnvDir, "")
	if d := Dir(""); d != DefaultDir {
		t.Errorf("no flag, no %s: %q", EnvDir, d)
	}
	t.Setenv(EnvDir, "/srv/ecl")
	if d := Dir(""); d != "/srv/ecl" {
		t.Errorf("%s set: %q", EnvDir, d)
	}
	if d := Dir("here"); d != "here" {
		t.Errorf("flag: %q", d)
	}
}

// The real table: every file of a known domain, once, its URL naming it,
// its checksum a digest of its hash.
func TestFiles(t *testing.T) {
	seen := map[string]bool{}
	digits := map[string]int{"sha256": 64, "md5": 32}
	for _, f := range Files("https://mirror.example/mnist/") {
		key := f.Domain + "/" + f.Name
		_, err := hex.DecodeString(f.Sum)
		if seen[key] || !strings.Contains(strings.Join(Domains, " "), f.Domain) || !strings.HasSuffix(f.URL, "/"+f.Name) ||
			len(f.Sum) != digits[f.Hash] || err != nil || f.Size <= 0 {
			t.Errorf("bad entry %+v", f)
		}
		if f.Domain == "mnist" && !strings.HasPrefix(f.URL, "https://mirror.example/mnist/") {
			t.Errorf("%s: URL %s ignores the MNIST base", key, f.URL)
		}
		seen[key] = true
	}
	if len(seen) != 12 {
		t.Errorf("%d files, want 12", len(seen))
	}
}

// Fetch with From copies the files from a local directory and verifies
// them: a gunzipped-content checksum accepts any compression, and a
// missing or wrong local file is an error naming it.
func TestFetchFrom(t *testing.T) {
	f := newFixture(t)
	src := t.TempDir()
	os.WriteFile(filepath.Join(src, "a.bin"), f.a, 0o644)
	os.WriteFile(filepath.Join(src, "b.gz"), gz(t, f.b, gzip.BestSpeed), 0o644)
	dir := t.TempDir()
	if err := Fetch(context.Background(), dir, nil, Options{Files: f.files, From: src}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "one", "a.bin")); !bytes.Equal(got, f.a) {
		t.Error("one/a.bin is not the local copy")
	}
	if f.hits != 0 {
		t.Errorf("%d requests to the server, want none", f.hits)
	}
	os.WriteFile(filepath.Join(src, "a.bin"), f.a[1:], 0o644)
	err := Fetch(context.Background(), t.TempDir(), []string{"one"}, Options{Files: f.files, From: src})
	if err == nil || !strings.Contains(err.Error(), filepath.Join(src, "a.bin")) {
		t.Errorf("a wrong local file: error %v, want one naming it", err)
	}
	err = Fetch(context.Background(), t.TempDir(), []string{"one"}, Options{Files: f.files, From: t.TempDir()})
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing local file: error %v, want not found", err)
	}
}

// The Fashion-MNIST entries verify the Debian package's files
// (dataset-fashion-mnist), when it is installed.
func TestFashionFromDebian(t *testing.T) {
	const deb = "/usr/share/datasets/fashion-mnist"
	if _, err := os.Stat(deb); err != nil {
		t.Skip(deb + " not found: skipping the Debian Fashion-MNIST files")
	}
	dir := t.TempDir()
	if err := Fetch(context.Background(), dir, []string{"fashion"}, Options{From: deb}); err != nil {
		t.Fatal(err)
	}
	if got := entries(t, dir); len(got) != 4 {
		t.Errorf("files %v, want the 4 Fashion-MNIST files", got)
	}
}

// The table's MNIST and USPS entries against the real files, when
// ../shared/datasets is beside the repository: served locally, they must
// verify (MNIST's training images there are a re-compressed copy, accepted
// by the MD5 of their content).
func TestRealFiles(t *testing.T) {
	shared := "../../../shared/datasets"
	if _, err := os.Stat(shared); err != nil {
		t.Skip("../shared/datasets not found: skipping the real MNIST and USPS files")
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(shared)))
	defer srv.Close()
	files := Files(srv.URL + "/mnist/")
	for i, f := range files {
		if f.Domain == "usps" {
			files[i].URL = srv.URL + "/usps/" + f.Name
		}
	}
	dir := t.TempDir()
	err := Fetch(context.Background(), dir, []string{"mnist", "usps"}, Options{Client: srv.Client(), Files: files})
	if err != nil {
		t.Fatal(err)
	}
	if got := entries(t, dir); len(got) != 6 {
		t.Errorf("files %v, want the 4 MNIST and 2 USPS files", got)
	}
}
