package experiment

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ecl-go/ecl/train"
)

// fakeRun is the results of run i of a study that trains nothing: one row
// whose scores and diagram depend on i.
func fakeRun(t *testing.T, i int) []Result {
	t.Helper()
	p := 0.1 + 0.8/float64(i+3)
	probs := []float64{p, 1 - p, 1 - p, p, 1.0 / 3, 2.0 / 3}
	d, err := calibrate(probs, 2, []int{0, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	return []Result{{Shift: DigitsShift("s"), Method: Baseline(fmt.Sprint("M", i)), Seed: uint64(i), Target: Scores{ACC: 1.0 / 3, ECE: p}, Diagram: d,
		Diag: &Diagnostics{AuxData: "heldout", Aux: []AuxCheck{{"target test", []float64{p}, []float64{2.0 / 3}}}}}}
}

// A run's results come back from a worker exactly, its error as its text
// (a diverged stage as that error), results JSON cannot hold as an error,
// and a worker that stops is a WorkerError.
func TestServeRunsRoundTrip(t *testing.T) {
	reqR, reqW := io.Pipe()
	repR, repW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- ServeRuns(reqR, repW, func(i int) ([]Result, error) {
			switch i {
			case 1:
				return nil, fmt.Errorf("run 1: %w", &train.DivergedError{Stage: "base", Epoch: 2, Loss: math.NaN(), First: 1.25})
			case 4:
				rs := fakeRun(t, i)
				rs[0].Target.NLL = math.Inf(1)
				return rs, nil
			}
			return fakeRun(t, i), nil
		})
		repW.Close()
	}()
	c := NewRunClient(reqW, repR)
	for _, i := range []int{0, 2} {
		got, err := c.Run(i)
		if want := fakeRun(t, i); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("run %d: %+v, %v; want %+v", i, got, err, want)
		}
	}
	_, err := c.Run(1)
	var we *WorkerError
	var de *train.DivergedError
	if err == nil || err.Error() != "run 1: train: the base stage diverged: mean loss NaN in epoch 2 (first batch 1.25)" || errors.As(err, &we) || !errors.As(err, &de) || de.Stage != "base" || de.Epoch != 2 || !math.IsNaN(de.Loss) || de.First != 1.25 {
		t.Errorf("failed run: %v", err)
	}
	if _, err := c.Run(4); err == nil || !strings.Contains(err.Error(), "run 4: sending its results: json: unsupported value: +Inf") {
		t.Errorf("run with a result JSON cannot hold: %v", err)
	}
	reqW.Close()
	if err := <-served; err != nil {
		t.Errorf("ServeRuns at the end of its input: %v", err)
	}
	if _, err := c.Run(3); !errors.As(err, &we) || we.Run != 3 {
		t.Errorf("run sent to a stopped worker: %v", err)
	}
}

// runAll returns the runs in plan order whatever order they end in,
// through the Store, and stops handing out runs after a failure, which is
// the first failed run's.
func TestRunAllKeepsPlanOrder(t *testing.T) {
	specs := make([]runSpec, 6)
	for i := range specs {
		specs[i] = runSpec{study: "fake", label: fmt.Sprint("run ", i), seed: uint64(i), config: i}
	}
	var started atomic.Int32
	exec := func(fail int) func(i int) ([]Result, error) {
		return func(i int) ([]Result, error) {
			started.Add(1)
			time.Sleep(time.Duration(len(specs)-i) * 5 * time.Millisecond) // later runs end first
			if i == fail {
				return nil, fmt.Errorf("run %d broke", i)
			}
			return fakeRun(t, i), nil
		}
	}
	dir := t.TempDir()
	s := Study{Jobs: 3, Exec: exec(-1), Store: Store{Dir: dir}}
	var done []int
	got, err := s.runAll(specs, nil, func(i int) { done = append(done, i) })
	if err != nil {
		t.Fatal(err)
	}
	for i, rs := range got {
		if !reflect.DeepEqual(rs, fakeRun(t, i)) {
			t.Errorf("run %d: %+v", i, rs)
		}
	}
	if len(done) != len(specs) {
		t.Errorf("done called for %v", done)
	}
	recs, _, err := ReadRecords(dir)
	if err != nil || len(recs) != len(specs) || !reflect.DeepEqual(recs[4].Results, fakeRun(t, 4)) {
		t.Errorf("%d records, %v", len(recs), err)
	}
	// A record that cannot be written (its folder is a file) fails the
	// study, though it is written while the next run computes.
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s = Study{Jobs: 2, Exec: exec(-1), Store: Store{Dir: file}}
	if _, err := s.runAll(specs, nil, nil); err == nil || !strings.Contains(err.Error(), "file") {
		t.Errorf("records not written: error %v", err)
	}
	started.Store(0)
	s = Study{Jobs: 2, Exec: exec(1)}
	if _, err := s.runAll(specs, nil, nil); err == nil || !strings.Contains(err.Error(), "run 1 failed: run 1 broke") {
		t.Errorf("failed study: %v", err)
	}
	if n := started.Load(); n > 3 {
		t.Errorf("%d runs started; after run 1 failed at most run 2 should have", n)
	}
}
