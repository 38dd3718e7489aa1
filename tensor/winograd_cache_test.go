package tensor

import (
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
	"unsafe"
)

// useWinogradCache sets the cache's size for the rest of t, emptied
// first.
func useWinogradCache(t *testing.T, bytes int) {
	t.Helper()
	old := SetWinogradCache(0)
	SetWinogradCache(bytes)
	t.Cleanup(func() { SetWinogradCache(0); SetWinogradCache(old) })
}

// cacheEntries counts the cache's entries: all of them, and those keeping
// filters.
func cacheEntries() (all, kept int) {
	c := winogradFilterCache
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.entries {
		all++
		if e.raw != nil {
			kept++
		}
	}
	return all, kept
}

// uncachedForward is the Winograd forward pass and input gradient of p
// with the cache off.
func uncachedForward[T Float](t *testing.T, x, w, dy []T, p Conv2DParams) (y, dx []T) {
	t.Helper()
	old := SetWinogradCache(0)
	defer SetWinogradCache(old)
	y, dx = make([]T, len(dy)), make([]T, len(x))
	conv2dForward(y, x, w, nil, p)
	conv2dBackwardInput(dx, dy, w, p)
	return y, dx
}

// TestWinogradCacheFollowsWeights calls the forward pass and the input
// gradient (the flipped filters) on F(4×4) and F(2×2) repeatedly: the
// second call with unchanged weights keeps their filters, later calls use
// them, and every result equals, bit for bit, the one computed with the
// cache off, also after the weights change in place (the kept filters
// are dropped) and after they change back.
func TestWinogradCacheFollowsWeights(t *testing.T) {
	for _, path := range []string{"winograd4", "winograd2"} {
		t.Run(path, func(t *testing.T) {
			useConvPath(t, path)
			m := map[string]int{"winograd4": 4, "winograd2": 2}[path]
			testCacheFollows[float32](t, m)
			testCacheFollows[float64](t, m)
		})
	}
}

func testCacheFollows[T Float](t *testing.T, m int) {
	useWinogradCache(t, 1<<24)
	r := newRNG(5)
	p := stride3x3(Conv2DParams{N: 3, C: 6, H: 11, W: 9, O: 5, PadH: 1, PadW: 1})
	x, _ := randOf[T](r, p.N*p.C*p.H*p.W)
	w, _ := randOf[T](r, p.O*p.C*9)
	dy, _ := randOf[T](r, p.N*p.O*p.OutH()*p.OutW())
	orig := slices.Clone(w)
	changed := slices.Clone(w)
	changed[len(w)/2] += 1
	origY, origDx := uncachedForward(t, x, orig, dy, p)
	changedY, changedDx := uncachedForward(t, x, changed, dy, p)
	check := func(step string, wantY, wantDx []T, wantKept int) {
		t.Helper()
		y, dx := make([]T, len(dy)), make([]T, len(x))
		conv2dForward(y, x, w, nil, p)
		conv2dBackwardInput(dx, dy, w, p)
		if !slices.Equal(y, wantY) || !slices.Equal(dx, wantDx) {
			t.Errorf("%s %s: cached results differ from uncached ones", DType[T](), step)
		}
		if all, kept := cacheEntries(); all != 2 || kept != wantKept {
			t.Errorf("%s %s: %d entries, %d keeping filters; want 2 and %d", DType[T](), step, all, kept, wantKept)
		}
	}
	check("first call", origY, origDx, 0)
	check("second call", origY, origDx, 2)
	check("third call", origY, origDx, 2)
	copy(w, changed)
	check("after a change in place", changedY, changedDx, 0)
	check("unchanged again", changedY, changedDx, 2)
	copy(w, orig)
	check("changed back", origY, origDx, 0)
	check("and kept again", origY, origDx, 2)
	mk, elem := kernelFor[T](), len(byteView(w[:1]))
	q := p // the input gradient's convolution, whose filters are p's flipped
	q.C, q.O = p.O, p.C
	_, forward := newWinograd[T](m, p).filterLayout(p, mk)
	_, flipped := newWinograd[T](m, q).filterLayout(q, mk)
	want := elem * (2*len(w) + (m+2)*(m+2)*(forward+flipped)) // both directions' copies and filters
	if got := WinogradCacheBytes(); got != want {
		t.Errorf("%s: the cache holds %d bytes, want %d", DType[T](), got, want)
	}
}

// TestWinogradCacheSize checks the size bound: a cache smaller than one
// entry keeps none, a cache for one entry keeps the most recently used of
// two layers, and a size of zero empties it.
func TestWinogradCacheSize(t *testing.T) {
	useConvPath(t, "winograd4")
	r := newRNG(6)
	p := stride3x3(Conv2DParams{N: 1, C: 4, H: 8, W: 8, O: 4, PadH: 1, PadW: 1})
	x, _ := randOf[float64](r, p.N*p.C*p.H*p.W)
	w1, _ := randOf[float64](r, p.O*p.C*9)
	w2, _ := randOf[float64](r, p.O*p.C*9)
	y := make([]float64, p.N*p.O*p.OutH()*p.OutW())
	_, stride := newWinograd[float64](4, p).filterLayout(p, kernelFor[float64]())
	entry := 8 * (len(w1) + 36*stride)
	run := func(ws ...[]float64) {
		for _, w := range ws {
			conv2dForward(y, x, w, nil, p)
		}
	}
	useWinogradCache(t, entry-1)
	run(w1, w1, w1)
	if got := WinogradCacheBytes(); got != 0 {
		t.Errorf("a cache of %d bytes holds %d bytes, want none kept (an entry is %d)", entry-1, got, entry)
	}
	SetWinogradCache(entry)
	run(w1, w1, w2, w2, w2)
	if got := WinogradCacheBytes(); got != entry {
		t.Errorf("a cache of one entry holds %d bytes, want %d", got, entry)
	}
	c := winogradFilterCache
	c.mu.Lock()
	for k, e := range c.entries {
		if e.raw != nil && k.addr != uintptrOf(w2) {
			t.Error("the cache kept the least recently used layer")
		}
	}
	c.mu.Unlock()
	SetWinogradCache(0)
	if all, _ := cacheEntries(); all != 0 || WinogradCacheBytes() != 0 {
		t.Errorf("size 0: %d entries, %d bytes left", all, WinogradCacheBytes())
	}
	run(w1, w1, w1)
	if all, _ := cacheEntries(); all != 0 {
		t.Errorf("size 0: the calls noted %d entries", all)
	}
}

func uintptrOf(w []float64) uintptr { return uintptr(unsafe.Pointer(&w[0])) }

// TestWinogradCacheConcurrent runs convolutions with shared and with
// private weights from several goroutines (with -race, the cache's
// locking), each result checked against the uncached one.
func TestWinogradCacheConcurrent(t *testing.T) {
	useConvPath(t, "winograd4")
	useWinogradCache(t, 1<<24)
	r := newRNG(7)
	p := stride3x3(Conv2DParams{N: 2, C: 5, H: 10, W: 10, O: 6, PadH: 1, PadW: 1})
	x, _ := randOf[float32](r, p.N*p.C*p.H*p.W)
	shared, _ := randOf[float32](r, p.O*p.C*9)
	dy := make([]float32, p.N*p.O*p.OutH()*p.OutW())
	want, _ := uncachedForward(t, x, shared, dy, p)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := shared
			if g%2 == 1 {
				w = slices.Clone(shared)
			}
			y := make([]float32, len(want))
			for range 5 {
				conv2dForward(y, x, w, nil, p)
				if !slices.Equal(y, want) {
					errs <- "a concurrent call's result differs from the uncached one"
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestWinogradCacheDropsCollected checks that the entry of weights the
// collector frees goes away.
func TestWinogradCacheDropsCollected(t *testing.T) {
	useConvPath(t, "winograd4")
	useWinogradCache(t, 1<<24)
	r := newRNG(8)
	p := stride3x3(Conv2DParams{N: 1, C: 3, H: 6, W: 6, O: 3, PadH: 1, PadW: 1})
	x, _ := randOf[float64](r, p.N*p.C*p.H*p.W)
	y := make([]float64, p.N*p.O*p.OutH()*p.OutW())
	func() {
		w, _ := randOf[float64](r, p.O*p.C*9)
		conv2dForward(y, x, w, nil, p)
		conv2dForward(y, x, w, nil, p)
	}()
	if _, kept := cacheEntries(); kept != 1 {
		t.Fatalf("%d entries keep filters, want 1", kept)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		runtime.GC()
		if all, _ := cacheEntries(); all == 0 {
			if WinogradCacheBytes() != 0 {
				t.Errorf("no entries, but %d bytes counted", WinogradCacheBytes())
			}
			return
		}
	}
	t.Error("the entry of collected weights is still there after 10 s")
}
