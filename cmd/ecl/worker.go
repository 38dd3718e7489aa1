package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"time"

	"github.com/ecl-go/ecl/experiment"
)

// workerEnv, set in the environment of a study command, makes it a worker
// process: it serves the runs its parent asks for (experiment.ServeRuns)
// instead of running the study.
const workerEnv = "ECL_STUDY_WORKER"

// isWorker reports whether this process is a study's worker.
func isWorker() bool { return os.Getenv(workerEnv) != "" }

// serveRuns is a worker's life: it answers run requests on standard input
// and output with run until its parent closes them, and exits at once if
// the parent dies during a run (a killed study leaves nothing running).
func serveRuns(run func(i int) ([]experiment.Result, error)) error {
	parent := os.Getppid()
	go func() {
		for range time.Tick(200 * time.Millisecond) {
			if os.Getppid() != parent {
				os.Exit(1)
			}
		}
	}()
	return experiment.ServeRuns(os.Stdin, os.Stdout, run)
}

// workerPool runs a study's runs in up to n worker processes of this binary,
// each given the study's command line and env, started when first needed.
type workerPool struct {
	args, env []string
	// idle holds the workers not computing a run, nil for one not started.
	idle chan *worker
	mu   sync.Mutex
	all  []*worker
}

type worker struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	client *experiment.RunClient
}

// newWorkerPool makes a pool of n workers running the study command args
// (its name first) with env added to this process's environment.
func newWorkerPool(n int, args, env []string) *workerPool {
	p := &workerPool{args: args, env: env, idle: make(chan *worker, n)}
	for range n {
		p.idle <- nil
	}
	return p
}

// start starts a worker process.
func (p *workerPool) start() (*worker, error) {
	bin, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("starting a worker: %w", err)
	}
	cmd := exec.Command(bin, p.args...)
	cmd.Env = append(append(os.Environ(), p.env...), workerEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting a worker: %w", err)
	}
	w := &worker{cmd: cmd, stdin: stdin, client: experiment.NewRunClient(stdin, stdout)}
	p.mu.Lock()
	p.all = append(p.all, w)
	p.mu.Unlock()
	return w, nil
}

// exec computes run i on an idle worker (experiment.Study.Exec); a worker
// that did not answer is killed, and replaced by a new one when needed.
func (p *workerPool) exec(i int) ([]experiment.Result, error) {
	w := <-p.idle
	if w == nil {
		var err error
		if w, err = p.start(); err != nil {
			p.idle <- nil
			return nil, err
		}
	}
	rs, err := w.client.Run(i)
	if we := (*experiment.WorkerError)(nil); errors.As(err, &we) {
		w.cmd.Process.Kill()
		w.stop()
		w = nil
	}
	p.idle <- w
	return rs, err
}

// stop closes the worker's input and waits for it to end.
func (w *worker) stop() {
	w.stdin.Close()
	w.cmd.Wait()
}

// close stops every worker started.
func (p *workerPool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, w := range p.all {
		if w.cmd.ProcessState == nil {
			w.stop()
		}
	}
}

// useWorkers gives the study s a pool of s.Jobs workers running the study
// command (its name and args), with env added to their environment, when
// s.Jobs > 1; the returned function stops them.
func useWorkers(s *experiment.Study, command string, args, env []string) (stop func()) {
	if s.Jobs <= 1 {
		return func() {}
	}
	p := newWorkerPool(s.Jobs, append([]string{command}, args...), env)
	s.Exec = p.exec
	return p.close
}

// sharedCores is the environment that has each of jobs workers use its
// share of this process's cores (GOMAXPROCS, at least 1), so that the
// workers together use as many threads as this process would: for
// studies whose results do not depend on GOMAXPROCS (the simulation's
// small models), where a worker's loops split across every core would
// only hand work back and forth with the other workers'.
func sharedCores(jobs int) []string {
	return []string{fmt.Sprintf("GOMAXPROCS=%d", max(1, runtime.GOMAXPROCS(0)/max(jobs, 1)))}
}
