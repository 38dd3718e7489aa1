package tensor

import (
	"errors"
	"strings"
	"testing"
)

// fakeDevice is a second device: a CPU that allocates buffers of its own
// type, which report fakeDevice as their device.
type fakeDevice struct{ CPU[float64] }

type fakeBuffer struct{ cpuBuffer[float64] }

func (*fakeBuffer) Device() Device[float64] { return fakeDevice{} }

func (fakeDevice) String() string { return "fake" }

func (fakeDevice) Alloc(n int) Buffer[float64] {
	return &fakeBuffer{cpuBuffer[float64]{data: make([]float64, n)}}
}

func (f fakeDevice) Empty(n int) Buffer[float64] { return f.Alloc(n) }

func (fakeDevice) Upload(src []float64) Buffer[float64] {
	return &fakeBuffer{cpuBuffer[float64]{data: append([]float64(nil), src...)}}
}

func TestShapeErrorsNameTheOpAndShapes(t *testing.T) {
	a, x4 := Zeros[float64](2, 3), Zeros[float64](1, 2, 5, 5)
	sb := SoftBins{Anchors: []float64{0, 1}, Dim: 1, Tau: 1}
	cases := []struct {
		name string
		f    func()
		want []string
	}{
		{"Add", func() { Add(a, Zeros[float64](4)) }, []string{"tensor.Add", "[2 3]", "[4]"}},
		{"Mul", func() { Mul(Zeros[float64](2, 1, 3), Zeros[float64](4, 2)) }, []string{"tensor.Mul", "[2 1 3]", "[4 2]"}},
		{"Greater", func() { Greater(a, Zeros[float64](3, 2)) }, []string{"tensor.Greater", "[2 3]", "[3 2]"}},
		{"MatMul", func() { MatMul(a, Zeros[float64](4, 5)) }, []string{"tensor.MatMul", "[2 3]", "[4 5]"}},
		{"MatMul 1-D", func() { MatMul(Zeros[float64](3), Zeros[float64](3, 2)) }, []string{"tensor.MatMul", "[3]", "[3 2]"}},
		{"MatMul batch", func() { MatMul(Zeros[float64](2, 2, 3), Zeros[float64](3, 3, 1)) }, []string{"tensor.MatMul", "[2 2 3]", "[3 3 1]"}},
		{"Reshape", func() { Reshape(a, 4, 2) }, []string{"tensor.Reshape", "[2 3]", "[4 2]"}},
		{"Reshape -1", func() { Reshape(a, -1, 4) }, []string{"tensor.Reshape", "[2 3]"}},
		{"Concat", func() { Concat(0, a, Zeros[float64](2, 4)) }, []string{"tensor.Concat", "[2 3]", "[2 4]"}},
		{"Concat rank", func() { Concat(0, a, Zeros[float64](2)) }, []string{"tensor.Concat", "[2 3]", "[2]"}},
		{"Concat none", func() { Concat[float64](0) }, []string{"tensor.Concat"}},
		{"Concat axis", func() { Concat(2, a, a) }, []string{"tensor.Concat", "axis 2", "[2 3]"}},
		{"Gather index", func() { Gather(a, 1, []int{0, 3}, 2, 1) }, []string{"tensor.Gather", "index 3", "[0, 3)"}},
		{"Gather negative", func() { Gather(a, 1, []int{0, -1}, 2, 1) }, []string{"tensor.Gather", "index -1"}},
		{"Gather count", func() { Gather(a, 1, []int{0}, 2, 1) }, []string{"tensor.Gather", "1 indices", "[2 1]"}},
		{"Gather shape", func() { Gather(a, 1, []int{0, 0, 0}, 3, 1) }, []string{"tensor.Gather", "[3 1]", "[2 3]"}},
		{"ScatterAdd index", func() { ScatterAdd(a, 0, []int{0, 0, 0, 0, 0, 2}, 2, 3) }, []string{"tensor.ScatterAdd", "index 2"}},
		{"ScatterAdd shape", func() { ScatterAdd(a, 0, make([]int, 6), 2, 4) }, []string{"tensor.ScatterAdd", "[2 3]", "[2 4]"}},
		{"OneHot", func() { OneHot[float64]([]int{0, 5}, 3) }, []string{"tensor.OneHot", "label 5", "position 1"}},
		{"Expand", func() { Expand(a, 3, 3) }, []string{"tensor.Expand", "[2 3]", "[3 3]"}},
		{"Expand rank", func() { Expand(a, 3) }, []string{"tensor.Expand", "[2 3]", "[3]"}},
		{"Narrow", func() { Narrow(a, 1, 2, 2) }, []string{"tensor.Narrow", "[2 3]"}},
		{"Narrow axis", func() { Narrow(a, 2, 0, 1) }, []string{"tensor.Narrow", "axis 2", "[2 3]"}},
		{"Sum axis", func() { Sum(a, 2, false) }, []string{"tensor.Sum", "axis 2", "[2 3]"}},
		{"Sum negative axis", func() { Sum(a, -3, false) }, []string{"tensor.Sum", "[2 3]"}},
		{"Max axis", func() { Max(a, 5, true) }, []string{"tensor.Max", "axis 5", "[2 3]"}},
		{"ArgMin axis", func() { ArgMin(a, 2, true) }, []string{"tensor.ArgMin", "[2 3]"}},
		{"Mean axis", func() { Mean(a, 2, false) }, []string{"axis 2", "[2 3]"}},
		{"LogSumExp axis", func() { LogSumExp(a, 2, false) }, []string{"axis 2", "[2 3]"}},
		{"Squeeze", func() { Squeeze(a, 0) }, []string{"tensor.Squeeze", "[2 3]"}},
		{"Unsqueeze", func() { Unsqueeze(a, -4) }, []string{"tensor.Unsqueeze", "[2 3]"}},
		{"Permute", func() { Permute(a, 1) }, []string{"tensor.Permute", "[2 3]"}},
		{"Transpose", func() { Transpose(a, 0, 2) }, []string{"tensor.Transpose", "[2 3]"}},
		{"Where", func() { Where(a, Zeros[float64](3), Zeros[float64](2, 2)) }, []string{"tensor.Where", "[2 3]", "[2 2]"}},
		{"SumTo", func() { SumTo(a, 2) }, []string{"tensor.SumTo", "[2]", "[2 3]"}},
		{"CopyInto", func() { CopyInto(a, Zeros[float64](3, 2)) }, []string{"tensor.CopyInto", "[2 3]", "[3 2]"}},
		{"FromSlice", func() { FromSlice([]float64{1, 2, 3}, 2, 2) }, []string{"tensor.FromSlice", "3 values", "[2 2]"}},
		{"Zeros", func() { Zeros[float64](2, -1) }, []string{"tensor.Zeros", "[2 -1]"}},
		{"Arange", func() { Arange[float64](0, 1, 0) }, []string{"tensor.Arange"}},
		{"HostData", func() { HostData(Transpose(a, 0, 1)) }, []string{"tensor.HostData", "[3 2]"}},
		{"At", func() { a.At(0, 3) }, []string{"tensor.At", "[0 3]", "[2 3]"}},
		{"Set", func() { a.Set(1, 0) }, []string{"tensor.Set", "[0]", "[2 3]"}},
		{"Item", func() { a.Item() }, []string{"tensor.Item", "[2 3]"}},
		// The fused kernels' own checks.
		{"Conv2D", func() { Conv2D(x4, Zeros[float64](3, 1, 3, 3), ConvOptions{}) }, []string{"tensor.Conv2D", "[1 2 5 5]", "[3 1 3 3]"}},
		{"Conv2D kernel", func() { Conv2D(x4, Zeros[float64](3, 2, 7, 7), ConvOptions{}) }, []string{"tensor.Conv2D", "larger than padded input"}},
		{"Conv2DBias", func() { Conv2DBias(x4, Zeros[float64](3, 2, 3, 3), Zeros[float64](4), ConvOptions{}) }, []string{"tensor.Conv2DBias", "bias [4]", "3 output channels"}},
		{"Conv2DBiasBackward", func() { Conv2DBiasBackward(a) }, []string{"tensor.Conv2DBiasBackward", "[2 3]"}},
		{"MaxPool2D", func() { MaxPool2D(a, 2, 2, ConvOptions{}) }, []string{"tensor.MaxPool2D", "[2 3]"}},
		{"AvgPool2D", func() { AvgPool2D(x4, 7, 7, ConvOptions{}) }, []string{"tensor.AvgPool2D", "window 7x7"}},
		{"BatchNorm", func() { BatchNorm(x4, Zeros[float64](3), Zeros[float64](2), 1e-5) }, []string{"tensor.BatchNorm", "[1 2 5 5]", "[3]"}},
		{"BatchNormRelu", func() { BatchNormRelu(x4, Zeros[float64](2), Zeros[float64](2), a, 1e-5) }, []string{"tensor.BatchNormRelu", "residual [2 3]"}},
		{"DenseBlock", func() {
			DenseBlock(x4, []DenseUnit[float64]{{Gamma: Zeros[float64](2), Beta: Zeros[float64](2), W: Zeros[float64](3, 5, 3, 3)}}, 1e-5)
		}, []string{"tensor.DenseBlock", "unit 0", "[3 5 3 3]"}},
		{"SoftAssign", func() { SoftAssign(a, sb) }, []string{"tensor.SoftAssign", "[2 3]", "[N, G, 1]"}},
		{"SoftAssign anchors", func() { SoftAssign(a, SoftBins{Anchors: []float64{0, 1, 2}, Dim: 2, Tau: 1}) }, []string{"tensor.SoftAssign", "3 anchor values"}},
		{"BinStats", func() { BinStats(Zeros[float64](2, 1, 3), Zeros[float64](3, 1, 2)) }, []string{"tensor.BinStats", "[2 1 3]", "[3 1 2]"}},
		{"AdamShapes", func() { AdamShapes("optim.Adam", a, Zeros[float64](6), a, a) }, []string{"optim.Adam", "[2 3]", "[6]"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mustPanic(t, c.f, c.want...)
			var se *ShapeError
			err := panicError(c.f)
			if !errors.As(err, &se) || !errors.Is(err, ErrShape) {
				t.Fatalf("panic value %T %v, want a *ShapeError", err, err)
			}
			if op := c.want[0]; strings.HasPrefix(op, "tensor.") && se.Op != op {
				t.Errorf("ShapeError.Op %q, want %q", se.Op, op)
			}
			if len(se.Shapes) == 0 && se.Op != "tensor.Concat" && se.Op != "tensor.Arange" {
				t.Errorf("ShapeError %v names no shapes", se)
			}
		})
	}
}

// TestArgumentErrors: arguments other than shapes that an op cannot take
// panic with an *ArgumentError naming the op.
func TestArgumentErrors(t *testing.T) {
	a := Zeros[float64](2, 3)
	cases := []struct {
		name string
		f    func()
		want []string
	}{
		{"Clamp", func() { Clamp(a, 1, 0) }, []string{"tensor.Clamp", "lo 1 > hi 0"}},
		{"SoftBinStats", func() {
			SoftBinStats(Zeros[float64](2, 1, 1), Zeros[float64](2, 1, 3), SoftBins{Anchors: []float64{0, 1}, Dim: 1, Tau: -1})
		}, []string{"tensor.SoftBinStats", "temperature -1"}},
		{"AdamConstants", func() { AdamConstants[float64](AdamUpdate{Step: 0}) }, []string{"tensor.AdamConstants", "step 0"}},
		{"DenseBlock", func() { DenseBlock(Zeros[float64](1, 2, 3, 3), nil, 1e-5) }, []string{"tensor.DenseBlock", "no units"}},
		{"NewKernel", func() { NewKernel[struct{}]("adam") }, []string{"tensor.NewKernel", `"adam"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mustPanic(t, c.f, c.want...)
			var ae *ArgumentError
			if err := panicError(c.f); !errors.As(err, &ae) || !errors.Is(err, ErrArgument) || ae.Op != c.want[0] {
				t.Errorf("panic value %T %v, want an *ArgumentError of %s", err, err, c.want[0])
			}
		})
	}
}

// panicError is the error f panics with (nil when it does not panic or
// panics with something else).
func panicError(f func()) (err error) {
	defer func() { err, _ = recover().(error) }()
	f()
	return nil
}

func TestDifferentDevicesPanic(t *testing.T) {
	cpu := FromSlice([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	fake := FromSliceOn[float64](fakeDevice{}, make([]float64, 6), 2, 3)
	if fake.Device() != (fakeDevice{}) || fake.Device().String() != "fake" {
		t.Fatalf("fake tensor on %v", fake.Device())
	}
	if z := ZerosOn[float64](fakeDevice{}, 2); z.Device() != (fakeDevice{}) {
		t.Fatalf("ZerosOn(fake) on %v", z.Device())
	}
	fakeCol := FromSliceOn[float64](fakeDevice{}, make([]float64, 3), 3, 1)
	cases := map[string]func(){
		"Add":          func() { Add(cpu, fake) },
		"Sub":          func() { Sub(fake, cpu) },
		"Mul":          func() { Mul(cpu, fake) },
		"Div":          func() { Div(cpu, fake) },
		"Pow":          func() { Pow(cpu, fake) },
		"Maximum":      func() { Maximum(cpu, fake) },
		"Minimum":      func() { Minimum(cpu, fake) },
		"Greater":      func() { Greater(cpu, fake) },
		"GreaterEqual": func() { GreaterEqual(cpu, fake) },
		"Equal":        func() { Equal(cpu, fake) },
		"MatMul":       func() { MatMul(cpu, fakeCol) },
		"Where":        func() { Where(cpu, cpu, fake) },
		"Concat":       func() { Concat(0, cpu, fake) },
		"CopyInto":     func() { CopyInto(cpu, fake) },
		"BinStats": func() {
			BinStats(Zeros[float64](2, 1, 3), FromSliceOn[float64](fakeDevice{}, make([]float64, 4), 2, 1, 2))
		},
	}
	for op, f := range cases {
		t.Run(op, func(t *testing.T) {
			mustPanic(t, f, "tensor."+op, "different devices", "cpu", "fake")
			var de *DeviceError
			if err := panicError(f); !errors.As(err, &de) || !errors.Is(err, ErrDevice) || de.Op != "tensor."+op {
				t.Errorf("panic value %T %v, want a *DeviceError of tensor.%s", err, err, op)
			}
		})
	}
	// Stack reports the Concat it delegates to.
	mustPanic(t, func() { Stack(0, cpu, fake) }, "tensor.Concat", "different devices")
	// Broadcasting does not bypass the check.
	mustPanic(t, func() { Add(Scalar(1.0), fake) }, "tensor.Add", "different devices")
	// To moves between devices and is the identity on the same one.
	if To(cpu, Device[float64](CPU[float64]{})) != cpu {
		t.Error("To(cpu tensor, cpu) made a copy")
	}
	moved := To(cpu, Device[float64](fakeDevice{}))
	if moved.Device() != (fakeDevice{}) || moved.Buffer() == cpu.Buffer() {
		t.Errorf("To(fake) is on %v", moved.Device())
	}
	if d := moved.Buffer().(*fakeBuffer).data; len(d) != 6 || d[5] != 6 {
		t.Errorf("To(fake) data %v", d)
	}
}
