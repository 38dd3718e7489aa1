package images

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/datasets/images/imagestest"
)

// cacheFiles writes an ImageFolder tree of JPEGs and PNGs of 12 to 40
// pixels a side and returns their paths.
func cacheFiles(t *testing.T, n int) []string {
	t.Helper()
	dir := t.TempDir()
	paths, err := imagestest.Tree(dir, []string{"a", "b", "c"}, n, 11)
	if err != nil {
		t.Fatal(err)
	}
	files := make([]string, len(paths))
	for i, p := range paths {
		files[i] = filepath.Join(dir, p)
	}
	return files
}

// logged collects a cache's log lines.
type logged struct{ lines []string }

func (l *logged) log(format string, args ...any) {
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logged) has(s string) bool {
	return slices.ContainsFunc(l.lines, func(line string) bool { return strings.Contains(line, s) })
}

// shardBytes reads the cache folder's shard files.
func shardBytes(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

// openCache opens a cache, failing the test on an error.
func openCache(t *testing.T, files []string, cfg CacheConfig) *Cache {
	t.Helper()
	c, err := OpenCache(files, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// A cache gives the prepared images Files gives, over several shards;
// with Prep{Side: Resize} the evaluation transform's tensors are Load's
// from the files, byte for byte; reopened, nothing is decoded again.
func TestCacheRoundTrip(t *testing.T) {
	files := cacheFiles(t, 10)
	for _, prep := range []Prep{{}, {Side: 20}, {Side: 16, Bound: true}} {
		dir := filepath.Join(t.TempDir(), "cache")
		var l logged
		cfg := CacheConfig{Dir: dir, Prep: prep, ShardBytes: 8000, Workers: 3, Log: l.log}
		c := openCache(t, files, cfg)
		if c.Len() != len(files) || c.Prep() != prep || c.Dir() != dir {
			t.Fatalf("%v: %d images, prep %v", prep, c.Len(), c.Prep())
		}
		if n := len(shardBytes(t, dir)); n < 3 {
			t.Errorf("%v: %d shards of 8000 bytes for %d images", prep, n, len(files))
		}
		ref := Files(files, 0, prep)
		for i := range files {
			want, _ := ref.Image(i)
			got, err := c.Image(i)
			if err != nil || got.W != want.W || got.H != want.H || !slices.Equal(got.Pix, want.Pix) {
				t.Fatalf("%v: image %d: %v", prep, i, err)
			}
		}
		if prep.Side > 0 && !prep.Bound {
			tr := EvalTransform(prep.Side, 12)
			want, err := Load(files, tr, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := LoadFrom(c, tr, Options{Workers: 4})
			if err != nil || !slices.Equal(got.X, want.X) {
				t.Errorf("%v: the cache's tensors differ from the files' (%v)", prep, err)
			}
		}
		before := shardBytes(t, dir)
		var again logged
		cfg.Log = again.log
		openCache(t, files, cfg)
		if again.has("decoding") || !maps(before, shardBytes(t, dir)) {
			t.Errorf("%v: reopened, the cache was built again: %v", prep, again.lines)
		}
	}
}

// maps reports whether two folders' files are the same.
func maps(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// A cache of other images (a file changed, or another Sum) or other
// settings is built again, never read.
func TestCacheStaleIsRebuilt(t *testing.T) {
	files := cacheFiles(t, 4)
	dir := filepath.Join(t.TempDir(), "cache")
	cfg := CacheConfig{Dir: dir, Prep: Prep{Side: 10}, ShardBytes: 1000}
	openCache(t, files, cfg).Close()
	// Replace image 2 with image 5 (another size and content).
	b, err := os.ReadFile(files[5])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(files[2], b, 0o644); err != nil {
		t.Fatal(err)
	}
	var l logged
	cfg.Log = l.log
	c := openCache(t, files, cfg)
	got, _ := c.Image(2)
	want, _ := c.Image(5)
	if !l.has("other images or settings") || !slices.Equal(got.Pix, want.Pix) {
		t.Errorf("a changed file: not rebuilt (%v)", l.lines)
	}
	c.Close()
	for _, change := range []func(*CacheConfig){
		func(c *CacheConfig) { c.Sum = strings.Repeat("ab", 32) },
		func(c *CacheConfig) { c.Prep.Side = 11 },
		func(c *CacheConfig) { c.Prep.Bound = true },
		func(c *CacheConfig) { c.MaxPixels = 1 << 20 },
		func(c *CacheConfig) { c.ShardBytes = 2000 },
	} {
		var l logged
		cc := cfg
		cc.Log = l.log
		change(&cc)
		openCache(t, files, cc).Close()
		if !l.has("other images or settings") {
			t.Errorf("%+v: not rebuilt (%v)", cc, l.lines)
		}
		var again logged
		cc.Log = again.log
		openCache(t, files, cc).Close()
		if again.has("decoding") {
			t.Errorf("%+v: rebuilt a second time", cc)
		}
	}
	// A shorter list: the stale shards past its end are removed.
	openCache(t, files[:3], cfg).Close()
	for name := range shardBytes(t, dir) {
		if name != "shard-000000.bin" {
			t.Errorf("%s left after rebuilding for 3 images", name)
		}
	}
}

// A build killed after some shards resumes after the last complete one,
// removes the killed write's temporary file, and ends with the shards of
// an uninterrupted build.
func TestCacheKilledBuildResumes(t *testing.T) {
	files := cacheFiles(t, 12)
	cfg := CacheConfig{Prep: Prep{Side: 24, Bound: true}, ShardBytes: 5000, Workers: 2}
	cfg.Dir = filepath.Join(t.TempDir(), "whole")
	openCache(t, files, cfg).Close()
	want := shardBytes(t, cfg.Dir)
	if len(want) < 4 {
		t.Fatalf("%d shards", len(want))
	}
	cfg.Dir = filepath.Join(t.TempDir(), "killed")
	killed := errors.New("killed")
	buildHook = func(k int) error {
		if k == 2 {
			return killed
		}
		return nil
	}
	_, err := OpenCache(files, cfg)
	buildHook = nil
	if !errors.Is(err, killed) {
		t.Fatalf("build: %v", err)
	}
	if n := len(shardBytes(t, cfg.Dir)); n != 2 {
		t.Fatalf("%d shards after the kill before shard 2", n)
	}
	tmp := filepath.Join(cfg.Dir, ".shard-000002.bin.tmp123")
	if err := os.WriteFile(tmp, []byte("half a shard"), 0o644); err != nil {
		t.Fatal(err)
	}
	var l logged
	cfg.Log = l.log
	c := openCache(t, files, cfg)
	first := 0
	for _, s := range c.shards[:2] {
		first += len(s.entries)
	}
	if !l.has(fmt.Sprintf("decoding images %d to", first+1)) {
		t.Errorf("did not resume after image %d: %v", first, l.lines)
	}
	if !maps(shardBytes(t, cfg.Dir), want) {
		t.Error("the resumed build's shards differ from an uninterrupted build's (or the temporary file is left)")
	}
}

// An image that cannot be read stops the build with its *Error; with
// Skip its error is stored and Image gives it, naming the file, so that
// Load with Skip from the cache reports what it reports from the files.
func TestCacheBadImage(t *testing.T) {
	files := cacheFiles(t, 3)
	bad := writeFile(t, filepath.Dir(files[0]), "bad.png", []byte("\x89PNG\r\n\x1a\nnot quite"))
	files = slices.Insert(files, 4, bad)
	cfg := CacheConfig{Dir: filepath.Join(t.TempDir(), "c"), Prep: Prep{Side: 8}}
	_, err := OpenCache(files, cfg)
	var ie *Error
	if !errors.As(err, &ie) || ie.Path != bad {
		t.Fatalf("without Skip: %v", err)
	}
	cfg.Skip = true
	c := openCache(t, files, cfg)
	tr := EvalTransform(8, 8)
	want, err := Load(files, tr, Options{Skip: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := LoadFrom(c, tr, Options{Skip: true})
	if err != nil || !slices.Equal(got.X, want.X) || !slices.Equal(got.Index, want.Index) || len(got.Skipped) != 1 || got.Skipped[0].Error() != want.Skipped[0].Error() {
		t.Fatalf("with Skip: %v %v, from the files %v", err, got.Skipped, want.Skipped)
	}
	if _, err := LoadFrom(c, tr, Options{}); !errors.As(err, &ie) || ie.Path != bad {
		t.Errorf("Load without Skip: %v", err)
	}
	if _, err := c.Image(len(files)); err == nil {
		t.Error("image past the end read")
	}
}

// oneShard builds a cache of two images in one shard and returns the
// shard's file and bytes.
func oneShard(t *testing.T) (string, []byte) {
	t.Helper()
	files := cacheFiles(t, 1)
	dir := filepath.Join(t.TempDir(), "c")
	openCache(t, files[:2], CacheConfig{Dir: dir, Prep: Prep{Side: 6}}).Close()
	path := filepath.Join(dir, "shard-000000.bin")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, b
}

// Every field of a shard's header and table is checked against the
// file's size before anything is allocated: forged or damaged shards are
// *CacheErrors naming the file and the offset of the field at fault, and
// a forged count of 2³²−1 entries allocates nothing of the sort; data
// that do not match their checksum are an error naming the offset.
func TestCacheDamagedShards(t *testing.T) {
	path, good := oneShard(t)
	le := binary.LittleEndian
	entry := func(k int) int { return headerSize + k*entrySize }
	cases := []struct {
		name   string
		edit   func(b []byte) []byte
		offset int64
	}{
		{"empty", func(b []byte) []byte { return nil }, 0},
		{"short header", func(b []byte) []byte { return b[:40] }, 0},
		{"magic", func(b []byte) []byte { b[0] = 'X'; return b }, 0},
		{"version", func(b []byte) []byte { le.PutUint32(b[8:], 7); return b }, 8},
		{"huge count", func(b []byte) []byte { le.PutUint32(b[12:], 1<<32-1); return b }, 12},
		{"zero count", func(b []byte) []byte { le.PutUint32(b[12:], 0); return b }, 12},
		{"first", func(b []byte) []byte { le.PutUint64(b[16:], 1<<62); return b }, 16},
		{"huge width", func(b []byte) []byte { le.PutUint32(b[entry(0):], 1<<31); return b }, int64(entry(0))},
		{"zero height", func(b []byte) []byte { le.PutUint32(b[entry(1)+4:], 0); return b }, int64(entry(1))},
		{"offset", func(b []byte) []byte { le.PutUint64(b[entry(1)+8:], 1<<40); return b }, int64(entry(1) + 8)},
		{"kind", func(b []byte) []byte { le.PutUint32(b[entry(0)+28:], 9); return b }, int64(entry(0) + 28)},
		{"message size", func(b []byte) []byte { le.PutUint32(b[entry(0)+28:], kindMessage); return b }, int64(entry(0))},
		{"truncated data", func(b []byte) []byte { return b[:len(b)-1] }, int64(entry(1) + 16)},
		{"bytes after", func(b []byte) []byte { return append(b, 0) }, int64(len(good))},
	}
	for _, c := range cases {
		b := c.edit(slices.Clone(good))
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := openShard(path)
		runtime.ReadMemStats(&after)
		var ce *CacheError
		if !errors.As(err, &ce) || ce.File != path || ce.Offset != c.offset || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), fmt.Sprintf("offset %d:", c.offset)) {
			t.Errorf("%s: %v, want a *CacheError at offset %d", c.name, err, c.offset)
			continue
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
			t.Errorf("%s: %d bytes allocated", c.name, grew)
		}
		t.Logf("%s: %v", c.name, err)
	}
	// A damaged shard stops OpenCache with the error, rather than being
	// rebuilt or read.
	b := slices.Clone(good)
	le.PutUint32(b[12:], 1<<32-1)
	os.WriteFile(path, b, 0o644)
	var ce *CacheError
	if _, err := OpenCache(nil, CacheConfig{Dir: filepath.Dir(path)}); !errors.As(err, &ce) {
		t.Errorf("OpenCache of a damaged shard: %v", err)
	}
	// A flipped bit in the pixels.
	b = slices.Clone(good)
	b[len(b)-5] ^= 1
	os.WriteFile(path, b, 0o644)
	sh, err := openShard(path)
	if err != nil {
		t.Fatal(err)
	}
	c := &Cache{dir: filepath.Dir(path), files: []string{"x", "y"}, shards: []*shard{sh.shard}, at: [][2]int{{0, 0}, {0, 1}}}
	defer c.Close()
	if _, err := c.Image(0); err != nil {
		t.Errorf("image 0: %v", err)
	}
	if _, err := c.Image(1); !errors.As(err, &ce) || ce.Offset != int64(sh.entries[1].off) || !strings.Contains(err.Error(), "CRC") {
		t.Errorf("flipped bit: %v", err)
	}
}

// OpenCache refuses bad settings.
func TestCacheConfigErrors(t *testing.T) {
	for _, cfg := range []CacheConfig{
		{},
		{Dir: t.TempDir(), Prep: Prep{Side: -1}},
		{Dir: t.TempDir(), ShardBytes: -1},
	} {
		if _, err := OpenCache(nil, cfg); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
	if _, err := OpenCache([]string{filepath.Join(t.TempDir(), "missing.jpg")}, CacheConfig{Dir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "missing.jpg") {
		t.Errorf("a missing file: %v", err)
	}
}
