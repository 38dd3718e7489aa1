package sweep_test

import (
	"fmt"
	"os"

	"github.com/ecl-go/ecl/experiment/sweep"
)

// A grid of two seeds and two shifts is four jobs, each writing into its
// own folder; Script lists the commands that run them.
func Example() {
	g := sweep.Grid{Command: "sim", Args: []string{"-runs", "1"}, Vary: []sweep.Axis{
		{Flag: "seed", Values: []string{"1:2"}},
		{Flag: "shifts", Values: []string{"normal", "uniform"}},
	}}
	jobs, err := g.Jobs("/out")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, j := range jobs {
		fmt.Println(j.Index, j.Name, j.Args)
	}
	run := sweep.Command("/bin/ecl", "", "/out", g.Command, []string{"sim", "-runs", "1"}, g.Vary)
	sweep.Script(os.Stdout, "list", run, "/out", jobs[:1], sweep.Resources{})
	// Output:
	// 0 seed=1_shifts=normal [sim -runs 1 -seed=1 -shifts=normal -out /out/seed=1_shifts=normal]
	// 1 seed=1_shifts=uniform [sim -runs 1 -seed=1 -shifts=uniform -out /out/seed=1_shifts=uniform]
	// 2 seed=2_shifts=normal [sim -runs 1 -seed=2 -shifts=normal -out /out/seed=2_shifts=normal]
	// 3 seed=2_shifts=uniform [sim -runs 1 -seed=2 -shifts=uniform -out /out/seed=2_shifts=uniform]
	// /bin/ecl sweep -out /out -vary seed=1:2 -vary shifts=normal,uniform -run 0 sim -runs 1  # job 0: -seed=1 -shifts=normal -out /out/seed=1_shifts=normal
}
