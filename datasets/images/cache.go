package images

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ecl-go/ecl/internal/atomicfile"
)

// Prep is what is done to a decoded image before a Cache stores it, and
// what Files does after decoding, so that both give the same images.
type Prep struct {
	// Side is the shorter side the image is resized to, as Transform's
	// resize (Size, PIL's bilinear filter); 0 keeps every image as it is.
	Side int
	// Bound resizes only the images whose shorter side is longer than
	// Side, keeping the smaller ones as they are: a cap on what is
	// stored. Without it every image is resized, up or down, as
	// Transform{Resize: Side} resizes it, so that the transform of the
	// result is the transform of the original, byte for byte.
	Bound bool
}

// Check reports a Prep that cannot be applied.
func (p Prep) Check() error {
	if p.Side < 0 || p.Side > MaxSide {
		return fmt.Errorf("images: prep side %d, want 0 (none) to %d", p.Side, MaxSide)
	}
	return nil
}

// Apply is img prepared: resized when p says so, else img itself.
func (p Prep) Apply(img *RGB) *RGB {
	if p.Side <= 0 || (p.Bound && min(img.W, img.H) <= p.Side) {
		return img
	}
	w, h := Size(img.W, img.H, p.Side)
	if w == img.W && h == img.H {
		return img
	}
	return Resize(img, w, h)
}

// String names p in a cache's folder: side28, bound115 or full.
func (p Prep) String() string {
	switch {
	case p.Side <= 0:
		return "full"
	case p.Bound:
		return "bound" + strconv.Itoa(p.Side)
	}
	return "side" + strconv.Itoa(p.Side)
}

// CacheConfig are OpenCache's settings.
type CacheConfig struct {
	// Dir is the cache's folder, one per list of images and Prep (made
	// when absent).
	Dir  string
	Prep Prep
	// Sum is the hex SHA-256 of the list's files, of their paths, sizes
	// and contents (Domains.Sums is one per domain); when empty, OpenCache
	// reads every file to compute it. The cache is keyed by it.
	Sum string
	// MaxPixels, Skip and Workers are Options's: the largest image
	// decoded, whether an image that cannot be read is recorded as such
	// (its error returned by Image) rather than stopping the build, and
	// the images decoded at once.
	MaxPixels int64
	Skip      bool
	Workers   int
	// ShardBytes is the size a shard file grows to before the next is
	// begun (DefaultShardBytes when 0): a build holds one shard in memory
	// and a killed one loses at most the shard it was writing.
	ShardBytes int64
	// Log, when set, receives progress messages.
	Log func(format string, args ...any)
}

// DefaultShardBytes is the size of a cache's shard files.
const DefaultShardBytes = 64 << 20

// A cache shard's file: the header, the table of entries, then each
// entry's data in order, back to back to the end of the file; integers
// little-endian.
//
//	offset  size  field
//	0       8     magic "ECLIMGS\n"
//	8       4     version (1)
//	12      4     count, the images in the shard
//	16      8     first, the index in the list of the shard's first image
//	24      32    key, the SHA-256 of the cache's list, sums and settings
//	56      32·count  entries: width u32, height u32, offset u64, length
//	              u64, CRC-32C of the data u32, kind u32 (0: pixels, RGB
//	              row by row, length 3·width·height; 1: the message of an
//	              image that could not be read, width and height 0)
const (
	shardMagic   = "ECLIMGS\n"
	shardVersion = 1
	headerSize   = 56
	entrySize    = 32
	// maxMessage bounds a recorded error's length.
	maxMessage = 4096
	// maxShardImages bounds the images of one shard.
	maxShardImages = 1 << 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// CacheError is a cache's shard that is not what it should be: its file,
// the offset of the field or data at fault, and what is wrong.
type CacheError struct {
	File    string
	Offset  int64
	Problem string
}

func (e *CacheError) Error() string {
	return fmt.Sprintf("images: cache shard %s, offset %d: %s (remove the cache's folder %s to build it again)", e.File, e.Offset, e.Problem, filepath.Dir(e.File))
}

// Cache is a list of images decoded and prepared once, stored in shard
// files in its folder; a Reader that reads them back without decoding.
// Its methods are safe for concurrent use; Close it when done.
type Cache struct {
	dir    string
	files  []string
	prep   Prep
	key    [32]byte
	shards []*shard
	at     [][2]int // image i: its shard and its entry there
}

// shard is one open shard file and its validated table.
type shard struct {
	path    string
	f       *os.File
	first   int
	entries []cacheEntry
}

type cacheEntry struct {
	w, h      uint32
	off, n    uint64
	crc, kind uint32
}

// entry kinds
const (
	kindPixels  = 0
	kindMessage = 1
)

// OpenCache opens the cache of the images files in cfg.Dir, building what
// is missing: each image decoded once (Decode with cfg.MaxPixels), then
// cfg.Prep, stored in shard files written atomically. A cache built from
// other files or settings (its key, the SHA-256 of the list's checksum
// cfg.Sum, its length, the Prep, MaxPixels and ShardBytes, differs) is
// removed and built again, never read; a build that was killed resumes
// after its last complete shard. A shard that is not a valid one (a
// header or table that disagrees with the file's size, say) is a
// *CacheError naming it and the offset. An image that cannot be read
// stops the build with its *Error, unless cfg.Skip, when its error is
// stored and returned by Image.
//
// One process builds a folder at a time; others that find it complete
// only read it.
func OpenCache(files []string, cfg CacheConfig) (*Cache, error) {
	if cfg.Dir == "" {
		return nil, errors.New("images: the cache's folder is empty")
	}
	if err := cfg.Prep.Check(); err != nil {
		return nil, err
	}
	if cfg.ShardBytes < 0 {
		return nil, fmt.Errorf("images: cache shard size %d, want ≥ 0 (0: %d)", cfg.ShardBytes, DefaultShardBytes)
	}
	if cfg.ShardBytes == 0 {
		cfg.ShardBytes = DefaultShardBytes
	}
	if cfg.MaxPixels <= 0 {
		cfg.MaxPixels = DefaultMaxPixels
	}
	if len(files) > MaxFiles {
		return nil, fmt.Errorf("images: a cache of %d images, more than %d", len(files), MaxFiles)
	}
	if cfg.Log == nil {
		cfg.Log = func(string, ...any) {}
	}
	key, err := cacheKey(files, cfg)
	if err != nil {
		return nil, err
	}
	c := &Cache{dir: cfg.Dir, files: files, prep: cfg.Prep, key: key}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("images: cache: %w", err)
	}
	next, err := c.openShards(cfg)
	if err != nil {
		c.Close()
		return nil, err
	}
	if next < len(files) {
		if err := c.build(next, cfg); err != nil {
			c.Close()
			return nil, err
		}
	}
	c.at = make([][2]int, 0, len(files))
	for s, sh := range c.shards {
		for e := range sh.entries {
			c.at = append(c.at, [2]int{s, e})
		}
	}
	return c, nil
}

// cacheKey is what ties a cache to its images and settings.
func cacheKey(files []string, cfg CacheConfig) ([32]byte, error) {
	sum := cfg.Sum
	if sum == "" {
		paths := slices.Clone(files)
		sums, err := hashFiles("", paths, cfg.Workers)
		if err != nil {
			return [32]byte{}, fmt.Errorf("images: cache: %w", err)
		}
		h := sha256.New()
		for _, p := range paths {
			fmt.Fprintf(h, "%s %d %s\n", sums[p].sum, sums[p].size, p)
		}
		sum = hex.EncodeToString(h.Sum(nil))
	}
	return sha256.Sum256(fmt.Appendf(nil, "ecl-images-cache/%d\nsum %s\nimages %d\nprep %d %t\nmax-pixels %d\nshard-bytes %d\n",
		shardVersion, sum, len(files), cfg.Prep.Side, cfg.Prep.Bound, cfg.MaxPixels, cfg.ShardBytes)), nil
}

// shardPath is shard k's file.
func (c *Cache) shardPath(k int) string {
	return filepath.Join(c.dir, fmt.Sprintf("shard-%06d.bin", k))
}

// openShards opens the complete shards of this key, in order, and returns
// the index of the first image none holds; it removes a stale cache's
// shards, and those after the first missing one.
func (c *Cache) openShards(cfg CacheConfig) (int, error) {
	next := 0
	for k := 0; ; k++ {
		path := c.shardPath(k)
		sh, err := openShard(path)
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return 0, err
		}
		if sh.key != c.key {
			sh.f.Close()
			cfg.Log("cache %s was built from other images or settings: building it again", c.dir)
			for _, s := range c.shards {
				s.f.Close()
			}
			c.shards, next = nil, 0
			break
		}
		if sh.first != next || next+len(sh.entries) > len(c.files) {
			sh.f.Close()
			return 0, &CacheError{path, 16, fmt.Sprintf("images %d to %d, but the shards before end at %d of %d", sh.first, sh.first+len(sh.entries), next, len(c.files))}
		}
		c.shards = append(c.shards, sh.shard)
		next += len(sh.entries)
	}
	// The shards after those kept (a stale cache's, or after a gap) and
	// the temporary files of a killed build.
	ents, err := os.ReadDir(c.dir)
	if err != nil {
		return 0, fmt.Errorf("images: cache: %w", err)
	}
	for _, e := range ents {
		name := e.Name()
		shardFile := strings.HasPrefix(name, "shard-") && strings.HasSuffix(name, ".bin")
		if !shardFile && !(strings.HasPrefix(name, ".shard-") && strings.Contains(name, ".bin.tmp")) {
			continue
		}
		if slices.ContainsFunc(c.shards, func(s *shard) bool { return filepath.Base(s.path) == name }) {
			continue
		}
		if err := os.Remove(filepath.Join(c.dir, name)); err != nil {
			return 0, fmt.Errorf("images: cache: %w", err)
		}
	}
	return next, nil
}

// openedShard is a shard with its header's key.
type openedShard struct {
	*shard
	key [32]byte
}

// openShard opens and validates the shard file path: every field of the
// header and the table is checked against the file's size before anything
// it claims is allocated.
func openShard(path string) (openedShard, error) {
	f, err := os.Open(path)
	if err != nil {
		return openedShard{}, err
	}
	sh, err := readShard(path, f)
	if err != nil {
		f.Close()
		return openedShard{}, err
	}
	return sh, nil
}

// readShard validates the shard in f (named path).
func readShard(path string, f *os.File) (openedShard, error) {
	fi, err := f.Stat()
	if err != nil {
		return openedShard{}, fmt.Errorf("images: cache: %w", err)
	}
	size := fi.Size()
	bad := func(off int64, format string, args ...any) (openedShard, error) {
		return openedShard{}, &CacheError{path, off, fmt.Sprintf(format, args...)}
	}
	if size < headerSize {
		return bad(0, "%d bytes, shorter than the %d-byte header", size, headerSize)
	}
	var hdr [headerSize]byte
	if _, err := f.ReadAt(hdr[:], 0); err != nil {
		return bad(0, "reading the header: %v", err)
	}
	le := binary.LittleEndian
	if string(hdr[:8]) != shardMagic {
		return bad(0, "not a shard of ecl's image cache (magic %q)", hdr[:8])
	}
	if v := le.Uint32(hdr[8:]); v != shardVersion {
		return bad(8, "version %d, this build reads %d", v, shardVersion)
	}
	count := int64(le.Uint32(hdr[12:]))
	if most := (size - headerSize) / entrySize; count > most || count > maxShardImages || count == 0 {
		return bad(12, "%d images, but the file of %d bytes has room for the entries of at most %d (and a shard holds 1 to %d)", count, size, most, maxShardImages)
	}
	first := le.Uint64(hdr[16:])
	if first > MaxFiles {
		return bad(16, "first image %d, more than %d", first, MaxFiles)
	}
	sh := openedShard{shard: &shard{path: path, f: f, first: int(first), entries: make([]cacheEntry, count)}}
	copy(sh.key[:], hdr[24:56])
	table := make([]byte, count*entrySize) // ≤ size, checked above
	if _, err := f.ReadAt(table, headerSize); err != nil {
		return bad(headerSize, "reading the table of %d entries: %v", count, err)
	}
	want := uint64(headerSize + count*entrySize) // the next entry's offset
	for k := range sh.entries {
		p := table[k*entrySize:]
		at := int64(headerSize + k*entrySize)
		e := cacheEntry{w: le.Uint32(p), h: le.Uint32(p[4:]), off: le.Uint64(p[8:]), n: le.Uint64(p[16:]), crc: le.Uint32(p[24:]), kind: le.Uint32(p[28:])}
		switch e.kind {
		case kindPixels:
			if e.w == 0 || e.h == 0 || uint64(e.w)*uint64(e.h) > 1<<40 || e.n != 3*uint64(e.w)*uint64(e.h) {
				return bad(at, "entry %d: %d×%d pixels in %d bytes, want at least 1×1 in 3 bytes a pixel", k, e.w, e.h, e.n)
			}
		case kindMessage:
			if e.w != 0 || e.h != 0 || e.n == 0 || e.n > maxMessage {
				return bad(at, "entry %d: an error message of %d bytes with size %d×%d, want 1 to %d bytes and 0×0", k, e.n, e.w, e.h, maxMessage)
			}
		default:
			return bad(at+28, "entry %d: kind %d, want 0 (pixels) or 1 (an error)", k, e.kind)
		}
		if e.off != want {
			return bad(at+8, "entry %d at offset %d, want %d (right after the previous)", k, e.off, want)
		}
		if e.n > uint64(size)-e.off {
			return bad(at+16, "entry %d: %d bytes from offset %d, past the end of the file of %d bytes", k, e.n, e.off, size)
		}
		want += e.n
		sh.entries[k] = e
	}
	if want != uint64(size) {
		return bad(int64(want), "%d bytes after the last entry's data", uint64(size)-want)
	}
	return sh, nil
}

// buildHook, when set (by tests), is called before shard k is written; an
// error stops the build as a kill would.
var buildHook func(k int) error

// build decodes the images from next on and writes them into new shards.
func (c *Cache) build(next int, cfg CacheConfig) error {
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	src := Files(c.files, cfg.MaxPixels, cfg.Prep)
	type item struct {
		img *RGB
		err error
	}
	var pending []item // decoded, not yet in a shard
	k := len(c.shards)
	first := next // the first pending image
	cfg.Log("cache %s: decoding images %d to %d of %d", c.dir, next+1, len(c.files), len(c.files))
	for first+len(pending) < len(c.files) || len(pending) > 0 {
		// Decode a chunk in parallel, in order.
		lo := first + len(pending)
		hi := min(len(c.files), lo+4*workers)
		chunk := make([]item, hi-lo)
		var wg sync.WaitGroup
		nextImg := make(chan int)
		for range min(workers, hi-lo) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range nextImg {
					chunk[i-lo].img, chunk[i-lo].err = src.Image(i)
				}
			}()
		}
		for i := lo; i < hi; i++ {
			nextImg <- i
		}
		close(nextImg)
		wg.Wait()
		for i, it := range chunk {
			if it.err != nil {
				var ie *Error
				if !errors.As(it.err, &ie) || !cfg.Skip {
					return it.err
				}
				msg := ie.Err.Error()
				chunk[i].err = errors.New(msg[:min(len(msg), maxMessage)])
			}
		}
		pending = append(pending, chunk...)
		// Write the shards that are full (or the last).
		for len(pending) > 0 {
			n, size := 0, int64(0)
			for n < len(pending) && size < cfg.ShardBytes && n < maxShardImages {
				size += itemBytes(pending[n].img, pending[n].err)
				n++
			}
			if size < cfg.ShardBytes && n < maxShardImages && first+len(pending) < len(c.files) {
				break // not full, and more to come
			}
			if buildHook != nil {
				if err := buildHook(k); err != nil {
					return err
				}
			}
			imgs, errs := make([]*RGB, n), make([]error, n)
			for i, it := range pending[:n] {
				imgs[i], errs[i] = it.img, it.err
			}
			if err := c.writeShard(k, first, imgs, errs); err != nil {
				return err
			}
			sh, err := openShard(c.shardPath(k))
			if err != nil {
				return err
			}
			c.shards = append(c.shards, sh.shard)
			pending, first, k = pending[n:], first+n, k+1
			cfg.Log("cache %s: %d of %d images", c.dir, first, len(c.files))
		}
	}
	return nil
}

// itemBytes is the data an image or an error message takes in a shard.
func itemBytes(img *RGB, err error) int64 {
	if err != nil {
		return int64(len(err.Error()))
	}
	return int64(len(img.Pix))
}

// writeShard writes shard k of the images (or errors) from first.
func (c *Cache) writeShard(k, first int, imgs []*RGB, errs []error) error {
	le := binary.LittleEndian
	hdr := make([]byte, headerSize, headerSize+entrySize*len(imgs))
	copy(hdr, shardMagic)
	le.PutUint32(hdr[8:], shardVersion)
	le.PutUint32(hdr[12:], uint32(len(imgs)))
	le.PutUint64(hdr[16:], uint64(first))
	copy(hdr[24:], c.key[:])
	off := uint64(headerSize + entrySize*len(imgs))
	for i, img := range imgs {
		var e [entrySize]byte
		var data []byte
		if errs[i] != nil {
			data = []byte(errs[i].Error())
			le.PutUint32(e[28:], kindMessage)
		} else {
			data = img.Pix
			le.PutUint32(e[0:], uint32(img.W))
			le.PutUint32(e[4:], uint32(img.H))
		}
		le.PutUint64(e[8:], off)
		le.PutUint64(e[16:], uint64(len(data)))
		le.PutUint32(e[24:], crc32.Checksum(data, castagnoli))
		hdr = append(hdr, e[:]...)
		off += uint64(len(data))
	}
	return atomicfile.Write(c.shardPath(k), func(w io.Writer) error {
		if _, err := w.Write(hdr); err != nil {
			return err
		}
		for i, img := range imgs {
			data := img.pixOrNil()
			if errs[i] != nil {
				data = []byte(errs[i].Error())
			}
			if _, err := w.Write(data); err != nil {
				return err
			}
		}
		return nil
	})
}

// pixOrNil is img's pixels, nil for no image.
func (img *RGB) pixOrNil() []byte {
	if img == nil {
		return nil
	}
	return img.Pix
}

// Len is the number of images.
func (c *Cache) Len() int { return len(c.at) }

// Prep is what was done to the images before they were stored.
func (c *Cache) Prep() Prep { return c.prep }

// Dir is the cache's folder.
func (c *Cache) Dir() string { return c.dir }

// Image reads image i. An image that could not be read when the cache
// was built is its *Error, naming its file; data that do not match their
// checksum is a *CacheError naming the shard and the offset.
func (c *Cache) Image(i int) (*RGB, error) {
	if i < 0 || i >= len(c.at) {
		return nil, fmt.Errorf("images: cache %s: image %d of %d", c.dir, i, len(c.at))
	}
	sh := c.shards[c.at[i][0]]
	e := sh.entries[c.at[i][1]]
	buf := make([]byte, e.n) // validated against the file's size
	if _, err := sh.f.ReadAt(buf, int64(e.off)); err != nil {
		return nil, &CacheError{sh.path, int64(e.off), fmt.Sprintf("reading image %d: %v", i, err)}
	}
	if crc32.Checksum(buf, castagnoli) != e.crc {
		return nil, &CacheError{sh.path, int64(e.off), fmt.Sprintf("image %d's %d bytes do not match their CRC-32C", i, e.n)}
	}
	if e.kind == kindMessage {
		return nil, &Error{Path: c.files[i], Err: errors.New(string(bytes.ToValidUTF8(buf, []byte("?"))))}
	}
	return &RGB{W: int(e.w), H: int(e.h), Pix: buf}, nil
}

// Close closes the shard files.
func (c *Cache) Close() error {
	var first error
	for _, s := range c.shards {
		if err := s.f.Close(); err != nil && first == nil {
			first = err
		}
	}
	c.shards = nil
	return first
}
