package main

import (
	"flag"
	"fmt"

	"github.com/ecl-go/ecl/datasets/images/synth"
)

// dataSynthDomains is "ecl data synth-domains": write the generated
// stand-in for PACS (package synth) in the layout ecl images reads.
func dataSynthDomains(args []string) error {
	fs := flag.NewFlagSet("data synth-domains", flag.ContinueOnError)
	out := fs.String("out", "", "the folder to write, absent or empty (required): one folder per style (cartoon, painting, photo, sketch), each with one folder per shape")
	perClass := fs.Int("per-class", 100, "images per class and domain")
	size := fs.Int("size", 64, "the images' side in pixels")
	seed := fs.Uint64("seed", 1, "the seed of every random choice: the same seed writes the same files")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	case *out == "":
		return fmt.Errorf("-out is required")
	case *perClass < 1 || *perClass > synth.MaxPerClass:
		return fmt.Errorf("-per-class %d: want 1 to %d", *perClass, synth.MaxPerClass)
	case *size < synth.MinSize || *size > synth.MaxSize:
		return fmt.Errorf("-size %d: want %d to %d", *size, synth.MinSize, synth.MaxSize)
	}
	n, err := synth.Write(*out, synth.Options{PerClass: *perClass, Size: *size, Seed: *seed})
	if err != nil {
		return fmt.Errorf("-out %s: %w", *out, err)
	}
	fmt.Printf("%d images (%d shapes × %d styles × %d, %d×%d PNG, seed %d) in %s: a generated stand-in for PACS, not PACS\n",
		n, len(synth.Classes), len(synth.Styles), *perClass, *size, *size, *seed, *out)
	return nil
}
