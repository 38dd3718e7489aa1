package main

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/ecl-go/ecl/bench"
	"github.com/ecl-go/ecl/tensor"
)

func main() {
	rounds := flag.Int("rounds", 7, "rounds of alternating calls; the medians are kept")
	dtypes := flag.String("dtype", "float32,float64", "comma-separated element types to measure")
	pattern := flag.String("run", ".", "regular expression selecting layers by \"Net C→O Size\"")
	out := flag.String("o", "", "file to write the table to (none: print the medians only)")
	flag.Parse()
	re, err := regexp.Compile(*pattern)
	if err != nil {
		fail(err)
	}
	var table strings.Builder
	fmt.Fprintf(&table, "# Written by go run ./bench/convchoice -rounds %d -dtype %s -run '%s' on %s, GOMAXPROCS %d:\n",
		*rounds, *dtypes, *pattern, time.Now().Format("2006-01-02"), runtime.GOMAXPROCS(0))
	fmt.Fprintf(&table, "# the fastest path of each pass by the medians of alternating rounds (tensor/convchoice.go).\n#\n")
	fmt.Fprintf(&table, "# dtype C O H W padH padW forward input weight\n")
	fmt.Printf("%-34s %-8s %-16s %10s %10s %10s %10s  (ms, medians)\n", "layer", "dtype", "pass", "direct", "im2col", "winograd4", "winograd2")
	for _, dt := range strings.Split(*dtypes, ",") {
		for _, l := range bench.ConvLayers() {
			name := fmt.Sprintf("%s %d→%d %d", l.Net, l.C, l.O, l.Size)
			if !re.MatchString(name) {
				continue
			}
			var line tensor.ConvChoice
			var med [3][]time.Duration
			switch dt {
			case "float32":
				med, err = bench.ConvTimes[float32](l, *rounds)
				line = bench.ConvChoiceOf[float32](l, med)
			case "float64":
				med, err = bench.ConvTimes[float64](l, *rounds)
				line = bench.ConvChoiceOf[float64](l, med)
			default:
				err = fmt.Errorf("dtype %q: want float32 or float64", dt)
			}
			if err != nil {
				fail(err)
			}
			for pass, ts := range med {
				fmt.Printf("%-34s %-8s %-16s", fmt.Sprintf("%s (N=%d)", name, l.N), dt, bench.ConvPasses[pass])
				for _, t := range ts {
					fmt.Printf(" %10.3f", t.Seconds()*1e3)
				}
				fmt.Println()
			}
			fmt.Fprintln(&table, line)
		}
	}
	if *out != "" {
		if err := os.WriteFile(*out, []byte(table.String()), 0o644); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "convchoice:", err)
	os.Exit(1)
}
