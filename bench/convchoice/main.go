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
	out := flag.String("o", "", "file to write the table to (none: print the medians only); this CPU's is tensor/"+tensor.ConvTableFile())
	flag.Parse()
	re, err := regexp.Compile(*pattern)
	if err != nil {
		fail(err)
	}
	lines, err := bench.ConvChoices(os.Stdout, strings.Split(*dtypes, ","), *rounds, func(l bench.ConvLayer) bool { return re.MatchString(l.String()) })
	if err != nil {
		fail(err)
	}
	if *out == "" {
		return
	}
	var table strings.Builder
	kernels := "AVX2 and FMA, no AVX-512"
	if tensor.HasAVX512() {
		kernels = "AVX-512"
	} else if !tensor.HasAVX2FMA() {
		kernels = "none (Go loops)"
	}
	fmt.Fprintf(&table, "# Written by go run ./bench/convchoice -rounds %d -dtype %s -run '%s' on %s, GOMAXPROCS %d,\n# assembly kernels %s: the table of tensor/%s\n",
		*rounds, *dtypes, *pattern, time.Now().Format("2006-01-02"), runtime.GOMAXPROCS(0), kernels, tensor.ConvTableFile())
	fmt.Fprintf(&table, "# the fastest forward path and pair of gradient paths by the medians of alternating rounds\n# (bench.ConvChoiceOf, tensor/convchoice.go).\n#\n")
	fmt.Fprintf(&table, "# dtype C O H W stride padH padW forward input weight\n")
	for _, l := range lines {
		fmt.Fprintln(&table, l)
	}
	if err := os.WriteFile(*out, []byte(table.String()), 0o644); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "convchoice:", err)
	os.Exit(1)
}
