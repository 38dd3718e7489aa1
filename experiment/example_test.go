package experiment_test

import (
	"errors"
	"fmt"
	"log"

	"github.com/ecl-go/ecl/datasets/sim"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/experiment"
)

// Run a small simulation study: one seed of the uniform shift, the base
// model (Uncal), temperature scaling, the CE-finetune control and
// top-label ECL. Temperature scaling divides the logits by one positive
// number, so it keeps the base model's predicted classes and accuracy.
func ExampleRunSim() {
	c := experiment.SimConfig{
		Recipe: "paper",
		Shifts: []sim.Kind{sim.Uniform},
		Study: experiment.Study{Paradigms: []ecl.Paradigm{ecl.TopLabel}, Runs: 1, Seed: 1,
			Methods: []string{"ts"}, Control: true},
		Points: 100, Hidden: 8, BaseEpochs: 5, AuxEpochs: 2, ECLEpochs: 2,
	}
	rs, err := experiment.RunSim(c)
	if err != nil {
		log.Fatal(err)
	}
	acc := map[string]float64{}
	for _, r := range rs {
		fmt.Println(r.Shift, r.Method)
		acc[r.Method.String()] = r.Target.ACC
	}
	fmt.Println("TS keeps the accuracy:", acc["TS"] == acc["Uncal"])

	c.BaseLR = 2 // Adam moves each weight by about the rate per step
	var bad *experiment.SettingError
	if errors.As(c.Validate(), &bad) {
		fmt.Println("refused before any work:", bad.Field, bad.Value)
	}
	// Output:
	// uniform Uncal
	// uniform TS
	// uniform CE-finetune
	// uniform ECL-toplabel
	// TS keeps the accuracy: true
	// refused before any work: BaseLR 2
}
