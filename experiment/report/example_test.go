package report_test

import (
	"fmt"
	"os"

	"github.com/ecl-go/ecl/datasets/sim"
	"github.com/ecl-go/ecl/experiment"
	"github.com/ecl-go/ecl/experiment/report"
)

// The run records of ecl sim's defaults (ten seeds) as a Markdown table of
// two metrics, on the uniform shift.
func Example() {
	rep, err := report.Load([]string{"testdata/sim-default"}, []experiment.ShiftID{experiment.SimShift(sim.Uniform)}, []string{"ACC", "ECE"})
	if err != nil {
		fmt.Println(err)
		return
	}
	rep.Write(os.Stdout, "md")
	// Output:
	// **uniform** (uniform n=400 hidden=100 batch=100; target, %, mean ± std over seeds)
	//
	// | method | ACC | ECE | vs Uncal | vs CE-ft |
	// |---|---|---|---|---|
	// | Uncal | 94.50 ± 1.75 | 6.39 ± 1.18 |  |  |
	// | CE-finetune | 95.90 ± 1.38 | 3.33 ± 0.81 |  |  |
	// | ECL-canonical | 95.82 ± 1.69 | 3.25 ± 0.83 | 10/10 -4.85 | 5/10 +0.12 |
	// | ECL-classwise | 95.70 ± 1.51 | 3.37 ± 0.65 | 10/10 -2.34 | 6/10 -0.04 |
	// | ECL-toplabel | 95.87 ± 1.45 | 3.39 ± 0.83 | 10/10 -3.00 | 5/10 +0.06 |
}
