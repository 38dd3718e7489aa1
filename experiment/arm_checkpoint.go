package experiment

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/nn"
	"github.com/ecl-go/ecl/train"
)

// stepCheckpoint is step-NN.json in a run's checkpoint directory: the
// training stage step NN was in when it was last saved.
type stepCheckpoint struct {
	// Stage is "aux" (the auxiliary head) or "fine-tune" (the ECL stage,
	// CE-finetune, a train-time baseline); Model names the model's state
	// file.
	Stage, Model string
	Train        train.StageState
	// Stream is the step's random stream; Epochs the ECL stage's trace so
	// far.
	Stream []byte
	Epochs []train.EpochTrace `json:",omitempty"`
}

// stepFile is the name of step i's checkpoint.
func stepFile(i int) string { return fmt.Sprintf("step-%02d.json", i) }

// training returns r with its auxiliary and fine-tuning stages set to
// checkpoint the current step (a.step) every a.ck.every epochs and after
// their last, with the model m, the step's random stream pcg and the ECL
// stage's trace (trace, nil for the other steps); when the step has a
// checkpoint, m, pcg and *trace are restored from it and its stage resumes.
// It returns the stage resumed ("" for none). Without a.ck it returns r.
func (a *arm[T]) training(r train.Recipe, m *ecl.Classifier[T], pcg *rand.PCG, trace *[]train.EpochTrace) (train.Recipe, string, error) {
	ck := a.ck
	if ck == nil || ck.dir == "" {
		return r, "", nil
	}
	if pcg == nil {
		return r, "", fmt.Errorf("experiment: step %d trains without a random stream to checkpoint", a.step)
	}
	path := filepath.Join(ck.dir, stepFile(a.step))
	save := func(stage string, epochs int) func(train.StageState) error {
		return func(s train.StageState) error {
			if s.Epoch%ck.every != 0 && s.Epoch != epochs {
				return nil
			}
			var old stepCheckpoint
			if _, err := readCheckpoint(path, &old); err != nil {
				old = stepCheckpoint{}
			}
			c := stepCheckpoint{Stage: stage, Model: fmt.Sprintf("step-%02d-%s-%06d.state", a.step, stage, s.Epoch), Train: s}
			var err error
			if c.Stream, err = pcg.MarshalBinary(); err != nil {
				return err
			}
			if trace != nil {
				c.Epochs = append([]train.EpochTrace(nil), *trace...)
			}
			if err := os.MkdirAll(ck.dir, 0o755); err != nil {
				return err
			}
			if err := nn.Save[T](filepath.Join(ck.dir, c.Model), m); err != nil {
				return err
			}
			if err := writeJSON(path, c); err != nil {
				// A stage whose optimiser state holds ±Inf (an infinite
				// gradient's Adam moments) cannot be written as JSON: the
				// epoch goes without a checkpoint, and a killed run redoes
				// the step from its last one.
				if unsupported := (*json.UnsupportedValueError)(nil); errors.As(err, &unsupported) {
					return os.Remove(filepath.Join(ck.dir, c.Model))
				}
				return err
			}
			if old.Model != "" && old.Model != c.Model {
				return os.Remove(filepath.Join(ck.dir, old.Model))
			}
			return nil
		}
	}
	r.Aux.Checkpoint = save("aux", r.Aux.Epochs)
	r.ECL.Checkpoint = save("fine-tune", r.ECL.Epochs)
	var c stepCheckpoint
	ok, err := readCheckpoint(path, &c)
	if err != nil || !ok {
		return r, "", err
	}
	if err := nn.Load[T](filepath.Join(ck.dir, c.Model), m); err != nil {
		return r, "", fmt.Errorf("experiment: checkpoint %s: %w", path, err)
	}
	if err := pcg.UnmarshalBinary(c.Stream); err != nil {
		return r, "", fmt.Errorf("experiment: checkpoint %s: the random stream: %w", path, err)
	}
	if trace != nil {
		*trace = c.Epochs
	}
	switch c.Stage {
	case "aux":
		r.Aux.Resume = &c.Train
	case "fine-tune":
		r.ECL.Resume = &c.Train
	default:
		return r, "", fmt.Errorf("experiment: checkpoint %s: unknown stage %q (want aux or fine-tune)", path, c.Stage)
	}
	if ck.logf != nil {
		ck.logf("step %d resumed in its %s stage after epoch %d from the checkpoint in %s", a.step, c.Stage, c.Train.Epoch, ck.dir)
	}
	return r, c.Stage, nil
}

// removeStep removes step i's checkpoint, once its row is saved.
func (ck *runCheckpoint) removeStep(i int) error {
	if ck.dir == "" {
		return nil
	}
	path := filepath.Join(ck.dir, stepFile(i))
	var c stepCheckpoint
	if ok, err := readCheckpoint(path, &c); err != nil || !ok {
		return err
	}
	if err := os.Remove(path); err != nil {
		return err
	}
	return os.Remove(filepath.Join(ck.dir, c.Model))
}

// stream is a new random stream of the arm's seed and the given stream
// number, as a generator and its source (which checkpoints save).
func (a *arm[T]) stream(n uint64) (*rand.Rand, *rand.PCG) {
	pcg := rand.NewPCG(a.seed, n)
	return rand.New(pcg), pcg
}
