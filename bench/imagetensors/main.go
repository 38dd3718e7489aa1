// Command imagetensors writes the tensors datasets/images makes of a
// folder of images, for bench/peer/images_agree.py to compare with
// torchvision's (the resize's agreement with PIL):
//
//	go run ./bench/imagetensors -data DIR -out FILE.npz [-resize 256] [-crop 224] [-max N]
//
// Every JPEG and PNG under DIR (searched recursively, in sorted path
// order; at most -max of them) is decoded and transformed with
// torchvision's evaluation transform (images.EvalTransform: the shorter
// side resized to -resize, centre crop -crop, ImageNet's normalisation).
// The archive holds x (float32 [N, 3, crop, crop]), paths (each image's
// path under DIR, forward slashes), resize and crop.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/ecl-go/ecl/datasets/arrays"
	"github.com/ecl-go/ecl/datasets/images"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "imagetensors:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("imagetensors", flag.ContinueOnError)
	data := fs.String("data", "", "folder of JPEG and PNG images, searched recursively (required)")
	out := fs.String("out", "", "the .npz to write (required)")
	resize := fs.Int("resize", 256, "the shorter side after resizing")
	crop := fs.Int("crop", 224, "the side of the centre crop")
	most := fs.Int("max", 0, "the most images written, the first in path order (0: all)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	case *data == "" || *out == "":
		return fmt.Errorf("-data and -out are required")
	case *most < 0:
		return fmt.Errorf("-max %d: want at least 0", *most)
	}
	t := images.EvalTransform(*resize, *crop)
	if err := t.Check(); err != nil {
		return fmt.Errorf("-resize %d, -crop %d: %w", *resize, *crop, err)
	}
	d, err := images.Flat(*data)
	if err != nil {
		return fmt.Errorf("-data: %w", err)
	}
	if *most > 0 && d.Len() > *most {
		d.Paths = d.Paths[:*most]
	}
	files := make([]string, d.Len())
	for i := range files {
		files[i] = d.File(i)
	}
	b, err := images.Load(files, t, images.Options{})
	if err != nil {
		return err
	}
	n := len(b.Index)
	err = arrays.WriteNPZ(*out, arrays.Float32s("x", b.X, n, 3, *crop, *crop), arrays.Strings("paths", d.Paths),
		arrays.Int64s("resize", []int64{int64(*resize)}), arrays.Int64s("crop", []int64{int64(*crop)}))
	if err != nil {
		return fmt.Errorf("-out: %w", err)
	}
	fmt.Printf("%d images of %s: tensors [%d, 3, %d, %d] in %s\n", n, *data, n, *crop, *crop, *out)
	return nil
}
