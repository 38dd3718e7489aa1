package main

import (
	"bytes"
	"os"
	"testing"
)

// TestHeaderIsCurrent: the committed src/ops.h is what opgen makes of the
// committed tensor/device.go (run go generate ./kernels/cuda otherwise).
func TestHeaderIsCurrent(t *testing.T) {
	src, err := os.ReadFile("../../../../tensor/device.go")
	if err != nil {
		t.Fatal(err)
	}
	want, err := header(src)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../src/ops.h")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("kernels/cuda/src/ops.h is stale; run go generate ./kernels/cuda then kernels/cuda/gen.sh")
	}
}

// TestHeaderValues: codes follow the Go declaration order, with the count
// last; a block that does not follow iota is refused.
func TestHeaderValues(t *testing.T) {
	src := []byte(`package tensor
type UnaryOp int
const (
	OpNeg UnaryOp = iota
	OpExp
)
type BinaryOp int
const (
	OpAdd BinaryOp = iota
)
type ReduceOp int
const (
	OpSum ReduceOp = iota
	OpMaxR
	OpMinR
)
`)
	h, err := header(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"OpNeg = 0,", "OpExp = 1,", "UnaryOps = 2\n", "OpAdd = 0,", "BinaryOps = 1\n", "OpMinR = 2,", "ReduceOps = 3\n"} {
		if !bytes.Contains(h, []byte(want)) {
			t.Errorf("header lacks %q:\n%s", want, h)
		}
	}
	bad := bytes.Replace(src, []byte("\tOpExp\n"), []byte("\tOpExp = 5\n"), 1)
	if _, err := header(bad); err == nil {
		t.Error("a constant with its own value was accepted")
	}
}
