package experiment

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/ecl-go/ecl/nn"
	"github.com/ecl-go/ecl/train"
)

// A digits run keeps its progress in Store.Dir/checkpoints/<run>/, <run>
// its record's file name without ".json" (so a checkpoint is used only by
// the run of the same configuration, seed and data):
//
//   - base.json and base-<epoch>.state: the base stage after every
//     CheckpointEvery epochs and after its last (the network's state, the
//     optimiser's, the random streams that training and the network's
//     dropout draw from);
//   - steps.json: the rows of the steps done after the base stage, with
//     the post-hoc methods' random stream;
//   - step-NN.json and its state file: the training step NN in progress,
//     in its auxiliary-head or fine-tuning stage, after every
//     CheckpointEvery epochs and after the stage's last (the model, the
//     optimiser's state, the step's random stream, the loss's state and
//     the ECL stage's trace so far), removed once its row is in
//     steps.json.
//
// Each file is written atomically, a state file before the JSON file that
// names it (the previous state file is removed after), so a run killed at
// any moment resumes from its last complete checkpoint and ends bit for
// bit as an uninterrupted run. The directory is removed once the study's
// records are written. A post-hoc step (no epochs) that was running when
// the run stopped starts again.

// checkpointDir is the directory of run s's checkpoints ("" without a
// Store directory).
func (st Store) checkpointDir(s runSpec) (string, error) {
	if st.Dir == "" {
		return "", nil
	}
	key, _, err := s.keys()
	if err != nil {
		return "", err
	}
	return filepath.Join(st.Dir, "checkpoints", strings.TrimSuffix(fileName(s.label, key), ".json")), nil
}

// removeCheckpoints removes the checkpoints of the runs specs, and the
// checkpoints directory when that leaves it empty.
func (st Store) removeCheckpoints(specs []runSpec) error {
	for _, s := range specs {
		dir, err := st.checkpointDir(s)
		if err != nil || dir == "" {
			return err
		}
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
	}
	if st.Dir != "" {
		err := os.Remove(filepath.Join(st.Dir, "checkpoints"))
		if err != nil && !errors.Is(err, fs.ErrNotExist) && !isNotEmpty(err) {
			return err
		}
	}
	return nil
}

// isNotEmpty tells whether err is removing a directory that is not empty
// (ENOTEMPTY, or EEXIST on the systems that say so).
func isNotEmpty(err error) bool {
	return errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST)
}

// runCheckpoint is one digits run's checkpoint directory and the random
// streams it saves; with dir empty it keeps nothing.
type runCheckpoint struct {
	dir string
	// every is the base stage's checkpoint interval in epochs.
	every int
	// init is the stream the network was initialised from (its dropout
	// layers draw from it), train the base stage's.
	init, train *rand.PCG
	// logf, when set, is told of each step resumed.
	logf func(format string, args ...any)
}

// baseCheckpoint is base.json.
type baseCheckpoint struct {
	// State names the network's state file; Done is set after the last
	// epoch.
	State       string
	Done        bool
	Stage       train.StageState
	Init, Train []byte
}

// stepsCheckpoint is steps.json.
type stepsCheckpoint struct {
	Results  []Result
	Diagrams []*Calibrations
	PostHoc  []byte
}

// loadBase restores the base stage's checkpoint into model and the random
// streams: the stage's state to resume from (nil when there is none) and
// whether the stage had ended.
func (ck *runCheckpoint) loadBase(model nn.Module[float32]) (*train.StageState, bool, error) {
	if ck.dir == "" {
		return nil, false, nil
	}
	var b baseCheckpoint
	ok, err := readCheckpoint(filepath.Join(ck.dir, "base.json"), &b)
	if err != nil || !ok {
		return nil, false, err
	}
	if err := nn.Load(filepath.Join(ck.dir, b.State), model); err != nil {
		return nil, false, fmt.Errorf("experiment: checkpoint %s: %w", ck.dir, err)
	}
	if err := ck.init.UnmarshalBinary(b.Init); err != nil {
		return nil, false, fmt.Errorf("experiment: checkpoint %s: the initialisation stream: %w", ck.dir, err)
	}
	if err := ck.train.UnmarshalBinary(b.Train); err != nil {
		return nil, false, fmt.Errorf("experiment: checkpoint %s: the training stream: %w", ck.dir, err)
	}
	return &b.Stage, b.Done, nil
}

// saveBase writes the base stage's checkpoint after s.Epoch of epochs.
func (ck *runCheckpoint) saveBase(model nn.Module[float32], s train.StageState, epochs int) error {
	if ck.dir == "" || (s.Epoch%ck.every != 0 && s.Epoch != epochs) {
		return nil
	}
	if err := os.MkdirAll(ck.dir, 0o755); err != nil {
		return err
	}
	var old baseCheckpoint
	if _, err := readCheckpoint(filepath.Join(ck.dir, "base.json"), &old); err != nil {
		old = baseCheckpoint{}
	}
	b := baseCheckpoint{State: fmt.Sprintf("base-%06d.state", s.Epoch), Done: s.Epoch == epochs, Stage: s}
	var err error
	if b.Init, err = ck.init.MarshalBinary(); err != nil {
		return err
	}
	if b.Train, err = ck.train.MarshalBinary(); err != nil {
		return err
	}
	if err := nn.Save(filepath.Join(ck.dir, b.State), model); err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(ck.dir, "base.json"), b); err != nil {
		return err
	}
	if old.State != "" && old.State != b.State {
		return os.Remove(filepath.Join(ck.dir, old.State))
	}
	return nil
}

// loadSteps returns the rows of the steps done (with their diagrams) and
// restores the post-hoc stream to where it was after them; nothing when
// there is no checkpoint of the steps.
func (ck *runCheckpoint) loadSteps(postHoc *rand.PCG, steps int) ([]Result, error) {
	if ck.dir == "" {
		return nil, nil
	}
	var s stepsCheckpoint
	ok, err := readCheckpoint(filepath.Join(ck.dir, "steps.json"), &s)
	if err != nil || !ok {
		return nil, err
	}
	if len(s.Results) > steps || len(s.Diagrams) != len(s.Results) {
		return nil, fmt.Errorf("experiment: checkpoint %s: %d rows with %d diagrams for a run of %d steps", ck.dir, len(s.Results), len(s.Diagrams), steps)
	}
	if err := postHoc.UnmarshalBinary(s.PostHoc); err != nil {
		return nil, fmt.Errorf("experiment: checkpoint %s: the post-hoc stream: %w", ck.dir, err)
	}
	for i := range s.Results {
		s.Results[i].Diagram = s.Diagrams[i]
	}
	return s.Results, nil
}

// saveSteps writes the rows of the steps done and the post-hoc stream.
func (ck *runCheckpoint) saveSteps(postHoc *rand.PCG, done []Result) error {
	if ck.dir == "" {
		return nil
	}
	s := stepsCheckpoint{Results: done}
	for _, r := range done {
		s.Diagrams = append(s.Diagrams, r.Diagram)
	}
	var err error
	if s.PostHoc, err = postHoc.MarshalBinary(); err != nil {
		return err
	}
	if err := os.MkdirAll(ck.dir, 0o755); err != nil {
		return err
	}
	return writeJSON(filepath.Join(ck.dir, "steps.json"), s)
}

// readCheckpoint decodes the JSON file at path into v; false when there
// is no such file.
func readCheckpoint(path string, v any) (bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("experiment: checkpoint %s: %w", path, err)
	}
	return true, nil
}
