package main

import "fmt"

// A row of bench/peer/train.sh's output: three rounds of this engine, three
// of PyTorch, and the ratio of the means that the script prints.
func Example() {
	out := `row (ms/op, per round)      go                  peer                 peer/go (of the means)
lenet5-train-step/float32   7.71 8.40 7.46      10.52 10.12 11.54    1.37
`
	row := []string{"lenet5-train-step/float32"}
	ours, err := Pick{Rows: row, Field: "1-3", Of: "mean"}.read("train.txt", out, "ms")
	if err != nil {
		fmt.Println(err)
		return
	}
	theirs, err := Pick{Rows: row, Field: "4-6", Of: "mean"}.read("train.txt", out, "ms")
	if err != nil {
		fmt.Println(err)
		return
	}
	l := line{Row: Row{Unit: "ms"}, ours: ours, theirs: theirs}
	fmt.Println(ours, theirs, formatRatio(l.ratio()))
	// Output: 7.857 10.73 1.37×
}
