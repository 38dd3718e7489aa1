package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ecl-go/ecl/datasets/digits/digitstest"
)

// digitsTable is ecl digits's (or ecl images's) printed tables without
// the wall time.
func digitsTable(stdout []byte) string {
	return regexp.MustCompile(`(?m)^((?:digits|images) .*), [0-9.hms]+$`).ReplaceAllString(string(stdout), "$1")
}

// ecl digits killed with SIGKILL inside a run (in the base stage, between
// the later models, and at random moments) and run again continues from
// the run's checkpoint and finishes with the tables, results files and
// diagrams of an uninterrupted run, bit for bit, and no checkpoint left.
func TestDigitsKilledInsideARunResumesBitForBit(t *testing.T) {
	bin := buildECL(t)
	data := t.TempDir()
	digitstest.Domains(t, data, 60)
	args := []string{"digits", "-data", data, "-target", "mnist", "-sources", "usps", "-epochs", "8", "-aux-epochs", "3", "-ecl-epochs", "3",
		"-batch", "10", "-lr", "0.01", "-max-test", "30", "-methods", "ts,pseudocal", "-paradigms", "toplabel,classwise", "-runs", "1",
		"-diagram-dpi", "40", "-out", "out"}
	want, took, wantFiles := uninterrupted(t, bin, args...)
	resume := func(trial string, dir string) string { return resumeMatches(t, trial, bin, args, dir, want, wantFiles) }
	for _, c := range []struct{ mark, resumed string }{
		{"base epoch 4/8", "base stage resumed after epoch"},
		{"seed 1: CE-finetune", "rows from the checkpoint"},
	} {
		dir := t.TempDir()
		killAfter(t, bin, args, dir, c.mark)
		if log := resume("killed after "+c.mark, dir); !strings.Contains(log, c.resumed) {
			t.Errorf("killed after %q, the run did not resume (no %q):\n%s", c.mark, c.resumed, log)
		}
	}
	// Killed as soon as a training step's checkpoint is there (the
	// directory polled), the run resumes that step in its stage.
	inStage := 0
	for trial := range 2 {
		dir := t.TempDir()
		c := exec.Command(bin, args...)
		c.Dir = dir
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		steps := filepath.Join(dir, "out", "checkpoints", "*", "step-*.json")
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			if m, _ := filepath.Glob(steps); len(m) > 0 {
				break
			}
		}
		c.Process.Kill()
		c.Wait()
		left, _ := filepath.Glob(steps)
		log := resume(fmt.Sprintf("killed in a training step, trial %d", trial), dir)
		if len(left) > 0 {
			inStage++
			if !strings.Contains(log, "stage after epoch") {
				t.Errorf("trial %d: killed with %v, the run did not resume the step:\n%s", trial, left, log)
			}
		}
	}
	if inStage == 0 {
		t.Error("no run was killed inside a training step")
	}
	rng := killMoments(t, took)
	for trial := range 1 {
		dir := t.TempDir()
		for range 2 {
			c := exec.Command(bin, args...)
			c.Dir = dir
			killAtRandom(t, c, rng, took, trial)
		}
		resume("trial "+string(rune('0'+trial)), dir)
	}
}

// resumeIn runs the command again in dir, where it was killed, and returns
// its standard output and error; it fails the test, naming the trial, if
// the command fails.
func resumeIn(t *testing.T, trial, bin string, args []string, dir string) (stdout []byte, stderr string) {
	t.Helper()
	c := exec.Command(bin, args...)
	c.Dir = dir
	var buf bytes.Buffer
	c.Stderr = &buf
	got, err := c.Output()
	if err != nil {
		t.Fatalf("%s: resumed run: %v\n%s", trial, err, buf.String())
	}
	return got, buf.String()
}

// resumeMatches runs the command again in dir, where it was killed, and
// fails the test, naming the trial, unless it ends with the tables want
// and the files wantFiles in dir/out of an uninterrupted run; it returns
// its log.
func resumeMatches(t *testing.T, trial, bin string, args []string, dir string, want []byte, wantFiles map[string]string) string {
	t.Helper()
	got, log := resumeIn(t, trial, bin, args, dir)
	if digitsTable(got) != digitsTable(want) {
		t.Errorf("%s: tables differ:\n%s\nwant\n%s", trial, got, want)
	}
	sameStudyFiles(t, trial, studyFiles(t, filepath.Join(dir, "out")), wantFiles)
	return log
}

// killAfter runs the command in dir and kills it (SIGKILL) as soon as
// its standard error has a line containing mark.
func killAfter(t *testing.T, bin string, args []string, dir, mark string) {
	t.Helper()
	killWhen(t, bin, args, dir, mark, nil)
}

// killWhen is killAfter that, once mark is seen, waits (up to a minute,
// the command's standard error left unread) until ready reports true
// before killing; nil ready waits for nothing. A study writes a run's
// record while its next run starts, so a test that counts the records
// of the runs before mark waits for them.
func killWhen(t *testing.T, bin string, args []string, dir, mark string, ready func() bool) {
	t.Helper()
	c := exec.Command(bin, args...)
	c.Dir = dir
	pipe, err := c.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(pipe)
	for sc.Scan() {
		if strings.Contains(sc.Text(), mark) {
			for deadline := time.Now().Add(time.Minute); ready != nil && !ready() && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
			c.Process.Kill()
			break
		}
	}
	if c.Wait() == nil {
		t.Fatalf("the study ended before %q", mark)
	}
}
