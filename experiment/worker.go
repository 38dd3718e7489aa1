package experiment

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/ecl-go/ecl/train"
)

// runAll returns the results of the runs specs, in plan order: each from
// its record (Store) or computed by local in this process, or, with Jobs > 1
// and Exec set, by Exec, Jobs runs at a time. A run's record is written
// while the next run computes, so that a worker does not wait for the
// disk. done, when set, is called after each run, one call at a time. No
// run starts after one has failed (or its record could not be written);
// the error is that of the first failed run in plan order.
func (s Study) runAll(specs []runSpec, local func(i int) ([]Result, error), done func(i int)) ([][]Result, error) {
	exec, jobs := local, 1
	if s.Exec != nil && s.Jobs > 1 {
		exec, jobs = s.Exec, min(s.Jobs, len(specs))
	}
	out := make([][]Result, len(specs))
	errs := make([]error, len(specs))
	var mu sync.Mutex
	next, failed := 0, false
	var wg, saves sync.WaitGroup
	fail := func(i int, err error) {
		mu.Lock()
		errs[i], failed = err, true
		mu.Unlock()
	}
	for range jobs {
		wg.Go(func() {
			for {
				mu.Lock()
				i := next
				if failed || i == len(specs) {
					mu.Unlock()
					return
				}
				next++
				mu.Unlock()
				rows, save, err := s.Store.do(specs[i], func() ([]Result, error) { return exec(i) })
				if err != nil {
					fail(i, err)
					continue
				}
				if save != nil {
					saves.Go(func() {
						if err := save(); err != nil {
							fail(i, err)
						}
					})
				}
				mu.Lock()
				out[i] = rows
				if done != nil {
					done(i)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	saves.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// runReply is a worker's answer to one run request: the run's results with
// their diagrams (which Result leaves out of its JSON), or its error's text
// and, for a diverged training stage, that error.
type runReply struct {
	Results  []Result        `json:",omitempty"`
	Diagrams []*Calibrations `json:",omitempty"`
	Err      string          `json:",omitempty"`
	Diverged *diverged       `json:",omitempty"`
}

// diverged is a train.DivergedError in JSON, its loss (maybe not finite)
// as text.
type diverged struct {
	Stage string
	Epoch int
	Loss  string
	First float64
}

// remoteError is a run's error sent by a worker: its text, wrapping the
// diverged stage when that was the cause (errors.As finds it as in a run
// computed here).
type remoteError struct {
	msg      string
	diverged *train.DivergedError
}

func (e *remoteError) Error() string { return e.msg }

func (e *remoteError) Unwrap() error {
	if e.diverged == nil {
		return nil
	}
	return e.diverged
}

// ServeRuns is a worker process's loop: it reads run indices, one per
// line, from in and writes each run's results, as run computes them, to out
// as one line of JSON, until in ends. A failed run is answered with its
// error's text; the worker goes on serving.
func ServeRuns(in io.Reader, out io.Writer, run func(i int) ([]Result, error)) error {
	sc := bufio.NewScanner(in)
	enc := json.NewEncoder(out)
	for sc.Scan() {
		i, err := strconv.Atoi(strings.TrimSpace(sc.Text()))
		if err != nil {
			return fmt.Errorf("experiment: run request %q: %w", sc.Text(), err)
		}
		var rep runReply
		rs, err := run(i)
		if err != nil {
			rep.Err = err.Error()
			if de := (*train.DivergedError)(nil); errors.As(err, &de) {
				rep.Diverged = &diverged{de.Stage, de.Epoch, strconv.FormatFloat(de.Loss, 'g', -1, 64), de.First}
			}
		}
		for _, r := range rs {
			rep.Results = append(rep.Results, r)
			rep.Diagrams = append(rep.Diagrams, r.Diagram)
		}
		if err := enc.Encode(rep); err != nil {
			// Results JSON cannot hold (a value not finite): the run fails.
			if err := enc.Encode(runReply{Err: fmt.Sprintf("experiment: run %d: sending its results: %v", i, err)}); err != nil {
				return err
			}
		}
	}
	return sc.Err()
}

// WorkerError is a worker that did not answer a run request as ServeRuns
// does (it stopped, or sent something else): the worker is unusable, the
// run may be tried again.
type WorkerError struct {
	Run int
	Err error
}

func (e *WorkerError) Error() string {
	return fmt.Sprintf("experiment: the worker computing run %d failed: %v", e.Run, e.Err)
}

func (e *WorkerError) Unwrap() error { return e.Err }

// RunClient asks a worker process (ServeRuns at the other end of its pipes)
// for runs, one at a time.
type RunClient struct {
	w   io.Writer
	dec *json.Decoder
}

// NewRunClient talks to a worker that reads requests from w and answers on r.
func NewRunClient(w io.Writer, r io.Reader) *RunClient {
	return &RunClient{w: w, dec: json.NewDecoder(r)}
}

// Run has the worker compute run i and returns its results, as the run
// would in this process (a JSON round trip is exact for them, as a record
// read back is).
func (c *RunClient) Run(i int) ([]Result, error) {
	if _, err := fmt.Fprintln(c.w, i); err != nil {
		return nil, &WorkerError{i, err}
	}
	var rep runReply
	if err := c.dec.Decode(&rep); err != nil {
		return nil, &WorkerError{i, err}
	}
	if rep.Err != "" {
		e := &remoteError{msg: rep.Err}
		if d := rep.Diverged; d != nil {
			loss, _ := strconv.ParseFloat(d.Loss, 64)
			e.diverged = &train.DivergedError{Stage: d.Stage, Epoch: d.Epoch, Loss: loss, First: d.First}
		}
		return nil, e
	}
	if len(rep.Diagrams) != len(rep.Results) {
		return nil, &WorkerError{i, fmt.Errorf("%d results and %d diagrams", len(rep.Results), len(rep.Diagrams))}
	}
	for j, d := range rep.Diagrams {
		rep.Results[j].Diagram = d
	}
	return rep.Results, nil
}
