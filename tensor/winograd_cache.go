package tensor

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"math/bits"
	"os"
	"runtime"
	"strconv"
	"sync"
	"unsafe"
)

// The transformed filters of a Winograd convolution are (m+2)²/9 times
// the weights, rewritten on every call: for the large networks' inference
// that rewrite costs about as much as the products it saves. Where the
// same weights come back unchanged (inference, evaluation between
// training epochs), winogradFilterCache keeps them transformed, with a
// copy of the weights they came from:
//
//   - a call whose weights (by address, length, layout and direction)
//     equal, bit for bit, the copy of a kept entry uses its filters;
//   - otherwise the call notes a hash of the weights; when the next call
//     with those weights finds the same hash (they did not change in
//     between), it transforms them into a new entry, evicting the least
//     recently used while the entries exceed the cache's size;
//   - a training loop, whose weights change every step, never keeps an
//     entry: each call pays one hash of its weights, and an entry whose
//     weights changed is dropped;
//   - when the weights' memory is collected, their entry goes with it.
//
// The result never depends on the cache: a kept entry is used only for
// weights equal to those it was made from. SetWinogradCache sizes it;
// ECL_WINOGRAD_CACHE, in MiB, sets the size when the package loads
// (default DefaultWinogradCache).

// DefaultWinogradCache is the default size of the cache of transformed
// Winograd filters, in bytes (the filters and the copy of their weights):
// enough for Wide ResNet-50-2's 3×3 layers in float32 (about 0.85 GiB).
const DefaultWinogradCache = 1 << 30

// filterKey names the weights of one direction of one convolution.
type filterKey struct {
	addr    uintptr // &w[0]
	n       int     // len(w)
	size    int     // bytes of an element
	o, c, m int
	flip    bool
}

// filterEntry is what the cache knows of one filterKey: the hash of its
// weights when last seen, and, once kept, their copy and packed filters.
type filterEntry struct {
	sum    uint64
	raw    []byte // the weights' bytes packed was made from; nil until kept
	packed any    // []T, the transformed filters (winograd.filters' layout)
	bytes  int    // of raw and packed, 0 until kept
	used   uint64 // the cache's clock when last used
}

type filterCache struct {
	mu      sync.Mutex
	limit   int // bytes; 0: keep nothing, note nothing
	used    int // bytes kept
	clock   uint64
	entries map[filterKey]*filterEntry
}

var (
	winogradFilterCache = &filterCache{limit: envCacheBytes(os.Getenv("ECL_WINOGRAD_CACHE")), entries: map[filterKey]*filterEntry{}}
	filterSeed          = maphash.MakeSeed()
)

// envCacheBytes is ECL_WINOGRAD_CACHE's size in bytes (s in MiB), or
// DefaultWinogradCache for "".
func envCacheBytes(s string) int {
	if s == "" {
		return DefaultWinogradCache
	}
	mib, err := strconv.Atoi(s)
	if err != nil || mib < 0 {
		panic(fmt.Sprintf("tensor: ECL_WINOGRAD_CACHE %q: want a size in MiB (0 turns the cache off)", s))
	}
	return mib << 20
}

// SetWinogradCache sets the size in bytes of the cache of transformed
// Winograd filters (0 turns it off, dropping what it holds), and returns
// the size it had. Entries beyond the new size are dropped, the least
// recently used first.
func SetWinogradCache(bytes int) int {
	if bytes < 0 {
		panic(fmt.Sprintf("tensor.SetWinogradCache: size %d bytes, want ≥ 0", bytes))
	}
	c := winogradFilterCache
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.limit
	c.limit = bytes
	if bytes == 0 {
		c.entries, c.used = map[filterKey]*filterEntry{}, 0
	}
	c.evict(nil)
	return old
}

// WinogradCacheBytes is the number of bytes the cache of transformed
// Winograd filters holds now.
func WinogradCacheBytes() int {
	c := winogradFilterCache
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}

// evict drops kept entries, least recently used first, other than keep,
// until the kept bytes fit the limit. c.mu is held.
func (c *filterCache) evict(keep *filterEntry) {
	for c.used > c.limit {
		var lru filterKey
		var old *filterEntry
		for k, e := range c.entries {
			if e.raw != nil && e != keep && (old == nil || e.used < old.used) {
				lru, old = k, e
			}
		}
		if old == nil {
			return
		}
		c.used -= old.bytes
		delete(c.entries, lru)
	}
}

// put makes e the entry of k, replacing what was there. c.mu is held.
func (c *filterCache) put(k filterKey, e *filterEntry) {
	if old := c.entries[k]; old != nil {
		c.used -= old.bytes
	}
	c.clock++
	e.used = c.clock
	c.entries[k] = e
	c.used += e.bytes
	c.evict(e)
}

// drop forgets k's entry (its weights were collected).
func (c *filterCache) drop(k filterKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.entries[k]; e != nil {
		c.used -= e.bytes
		delete(c.entries, k)
	}
}

// byteView is s's memory as bytes.
func byteView[T Float](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}

// equalBytes reports a and b equal, comparing slices of them over the
// cores.
func equalBytes(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	const chunk = 1 << 20
	n := (len(a) + chunk - 1) / chunk
	differ := make([]bool, n)
	parallelFor(n, chunk/8, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			end := min((i+1)*chunk, len(a))
			differ[i] = !bytes.Equal(a[i*chunk:end], b[i*chunk:end])
		}
	})
	for _, d := range differ {
		if d {
			return false
		}
	}
	return true
}

// packedFilters returns wg.filters of w for p (size values), and a func
// to call when done with them: from the cache where it keeps them, else
// transformed into a pooled buffer.
func (wg *winograd[T]) packedFilters(w []T, mk microKernel[T], p Conv2DParams, flip bool, size int) ([]T, func()) {
	if len(w) == 0 {
		return wg.pooledFilters(w, mk, p, flip, size)
	}
	c := winogradFilterCache
	k := filterKey{n: len(w), size: int(unsafe.Sizeof(w[0])), o: p.O, c: p.C, m: wg.m, flip: flip, addr: uintptr(unsafe.Pointer(&w[0]))}
	c.mu.Lock()
	limit, e := c.limit, c.entries[k]
	c.mu.Unlock()
	if limit == 0 {
		return wg.pooledFilters(w, mk, p, flip, size)
	}
	raw := byteView(w)
	if e != nil && e.raw != nil && equalBytes(e.raw, raw) {
		c.mu.Lock()
		c.clock++
		e.used = c.clock
		c.mu.Unlock()
		return e.packed.([]T), func() {}
	}
	sum := maphash.Bytes(filterSeed, raw)
	if e != nil && e.sum == sum && len(raw)+size*k.size <= limit {
		// The pool's buffer, if it has one, whose pages are in memory
		// already; the entry keeps it.
		packed := *getFrom[T](packedPool[T](size), size)
		wg.filters(packed, w, mk, p, flip)
		c.mu.Lock()
		c.put(k, &filterEntry{sum: sum, raw: bytes.Clone(raw), packed: packed, bytes: len(raw) + size*k.size})
		c.mu.Unlock()
		return packed, func() {}
	}
	c.mu.Lock()
	c.put(k, &filterEntry{sum: sum})
	c.mu.Unlock()
	if e == nil {
		runtime.AddCleanup(&w[0], c.drop, k)
	}
	return wg.pooledFilters(w, mk, p, flip, size)
}

// pooledFilters is wg.filters of w in a buffer from winogradPacked, and
// the func giving it back.
func (wg *winograd[T]) pooledFilters(w []T, mk microKernel[T], p Conv2DParams, flip bool, size int) ([]T, func()) {
	pool := packedPool[T](size)
	buf := getFrom[T](pool, size)
	wg.filters(*buf, w, mk, p, flip)
	return *buf, func() { pool.Put(buf) }
}

// packedPool is winogradPacked's pool for buffers of size values of T.
func packedPool[T Float](size int) *sync.Pool {
	return poolOf[T](&winogradPacked[bits.Len(uint(size))])
}
