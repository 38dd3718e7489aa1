package main

import (
	"flag"
	"fmt"
	"os"
)

// indexes are the indexes benchdoc takes without arguments, from the
// repository root.
var indexes = []string{"bench/results/current.json", "kernels/cuda/results/current.json"}

func main() {
	check := flag.Bool("check", false, "leave the READMEs as they are; exit 1 when a table differs from what the raw files give")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: go run ./bench/benchdoc [-check] [INDEX...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	paths := flag.Args()
	if len(paths) == 0 {
		paths = indexes
	}
	failed := false
	for _, p := range paths {
		changed, readme, err := update(p, *check)
		switch {
		case err != nil:
			fmt.Fprintln(os.Stderr, "benchdoc:", err)
			failed = true
		case changed:
			fmt.Println(readme + ": tables rewritten")
		default:
			fmt.Println(readme + ": tables current")
		}
	}
	if failed {
		os.Exit(1)
	}
}
