//go:build cuda

package cuda

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/ecl-go/ecl/tensor"
)

// engine owns the CUDA context of GPU 0. Every driver call is made through
// do, which holds the engine's lock and makes the context current on the
// calling OS thread: the caller's goroutine runs the work itself, with no
// hand-off to another thread. The methods documented "on the context
// thread" may be called only from inside such a closure.
type engine struct {
	mu    sync.Mutex // held by do
	drv   driver
	name  string
	total int64 // device memory, bytes
	alloc *allocator
	// The most recent launch, named in errors found when synchronising
	// (kernels run asynchronously); formatted only then.
	last     kernel
	lastSfx  string
	lastArgs []uint64

	dev32 *device[float32]
	dev64 *device[float64]

	// Copies between host and device, counted for Transfers.
	uploads, downloads, records atomic.Int64
}

var (
	engineOnce sync.Once
	theEngine  *engine
	engineErr  error
)

// getEngine opens the context on first use.
func getEngine() (*engine, error) {
	engineOnce.Do(func() { theEngine, engineErr = start() })
	return theEngine, engineErr
}

func start() (*engine, error) {
	e := &engine{alloc: newAllocator()}
	err := e.do(func() (err error) {
		e.name, e.total, err = e.drv.open()
		return err
	})
	if err != nil {
		return nil, err
	}
	e.dev32 = &device[float32]{e: e, sfx: "_f32", size: 4}
	e.dev64 = &device[float64]{e: e, sfx: "_f64", size: 8}
	registerKernels(e.dev32)
	registerKernels(e.dev64)
	return e, nil
}

// do runs f on the context thread: the calling goroutine, locked to its OS
// thread for the call, with the engine's lock held and the context current.
func (e *engine) do(f func() error) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := e.drv.bind(); err != nil {
		return fmt.Errorf("cuda: making the context of %s current: %w", e.name, err)
	}
	return f()
}

// must panics with err: the tensor.Device methods have no error results.
func must(err error) {
	if err != nil {
		panic(err)
	}
}

// grid is a launch configuration.
type grid struct{ x, y, z, block, shared int }

// linear is the configuration of a grid-stride loop over n elements, blocks
// of blockSize threads.
func linear(n int) grid { return grid{x: blocks(n, blockSize), y: 1, z: 1, block: blockSize} }

// launch queues kernel k on the stream (on the context thread). Every
// argument is 8 bytes: a device pointer, an int64 or a float64's bits. A
// grid with no blocks launches nothing.
func (e *engine) launch(k kernel, sfx string, g grid, args ...uint64) error {
	if len(args) != len(k.params) {
		return fmt.Errorf("cuda: %s: %d arguments for %d parameters %v", describe(k, sfx, args), len(args), len(k.params), k.params)
	}
	if g.x == 0 || g.y == 0 || g.z == 0 {
		return nil
	}
	if err := e.drv.launch(k, sfx, g, args); err != nil {
		return fmt.Errorf("cuda: launching %s on grid %dx%dx%d of %d threads (%d bytes shared): %w", describe(k, sfx, args), g.x, g.y, g.z, g.block, g.shared, err)
	}
	e.last, e.lastSfx, e.lastArgs = k, sfx, args
	return nil
}

// sync waits for the stream (on the context thread).
func (e *engine) sync() error {
	if err := e.drv.sync(); err != nil {
		return fmt.Errorf("cuda: synchronising on %s (last kernel %s): %w", e.name, e.lastLaunch(), err)
	}
	return nil
}

// lastLaunch names the most recent launch.
func (e *engine) lastLaunch() string {
	if e.last.name == "" {
		return "none"
	}
	return describe(e.last, e.lastSfx, e.lastArgs)
}

// upload copies host memory into device memory at dst (on the context
// thread), adding one to count. The driver stages pageable memory before
// returning, so src may be reused at once.
func (e *engine) upload(dst uint64, src unsafe.Pointer, bytes int64, count *atomic.Int64) error {
	if bytes == 0 {
		return nil
	}
	count.Add(1)
	if err := e.drv.htod(dst, src, bytes); err != nil {
		return fmt.Errorf("cuda: copying %d bytes to %s: %w", bytes, e.name, err)
	}
	return nil
}

// uploadInts copies v to a new device block (on the context thread); the
// caller releases it once the kernels that read it are queued.
func (e *engine) uploadInts(v []int64) (block, error) {
	b, err := e.malloc(int64(len(v)) * 8)
	if err != nil {
		return b, err
	}
	if len(v) > 0 {
		err = e.upload(b.ptr, unsafe.Pointer(&v[0]), int64(len(v))*8, &e.records)
	}
	return b, err
}

func newDevice[T tensor.Float]() (tensor.Device[T], error) {
	e, err := getEngine()
	if err != nil {
		return nil, err
	}
	var d any = e.dev64
	if _, ok := any(T(0)).(float32); ok {
		d = e.dev32
	}
	return d.(tensor.Device[T]), nil
}

func syncAll() error {
	e, err := getEngine()
	if err != nil {
		return err
	}
	return e.do(e.sync)
}

func transfers() Transfers {
	e, err := getEngine()
	if err != nil {
		return Transfers{}
	}
	return Transfers{Uploads: e.uploads.Load(), Downloads: e.downloads.Load(), Records: e.records.Load()}
}

func bytesInUse() int64 {
	e, err := getEngine()
	if err != nil {
		return 0
	}
	return e.alloc.inUseBytes()
}
