package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/ecl-go/ecl/datasets/fetch"
)

const dataUsage = `usage: ecl data fetch [-dir D] [-domains mnist,usps,svhn,fashion] [-force] [-mnist-url URL] [-from LOCAL-DIR]
       ecl data synth-domains -out DIR [-per-class N] [-size S] [-seed N]
fetch downloads the digit data sets and Fashion-MNIST into D/mnist, D/usps, D/svhn and D/fashion (or copies
them from a local directory, such as Debian's /usr/share/datasets/fashion-mnist) and verifies their checksums;
synth-domains writes a generated stand-in for PACS (seven shapes in four styles) for ecl images`

// dataCommands are ecl data's subcommands.
var dataCommands = map[string]func(args []string) error{
	"fetch":         dataFetch,
	"synth-domains": dataSynthDomains,
}

// runData is "ecl data fetch" and "ecl data synth-domains".
func runData(args []string) error {
	if len(args) == 0 || dataCommands[args[0]] == nil {
		fmt.Fprintln(os.Stderr, dataUsage)
		if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
			return flag.ErrHelp
		}
		return errors.New("want the subcommand fetch or synth-domains")
	}
	return dataCommands[args[0]](args[1:])
}

// dataFetch is "ecl data fetch": download the digit data sets (MNIST,
// USPS, SVHN) into the data directory and verify them. Files present with
// the right checksum are kept; an interrupted download leaves no partial
// file.
func dataFetch(args []string) error {
	fs := flag.NewFlagSet("data fetch", flag.ContinueOnError)
	dir := fs.String("dir", "", "data directory (empty: $"+fetch.EnvDir+", else "+fetch.DefaultDir+")")
	domains := fs.String("domains", strings.Join(fetch.Domains, ","), "comma list of data sets to fetch")
	force := fs.Bool("force", false, "download again, and replace, files present with a wrong checksum")
	mnist := fs.String("mnist-url", fetch.DefaultMNISTBase, "base URL of the MNIST files")
	from := fs.String("from", "", "local directory holding the files of -domains by name (e.g. /usr/share/datasets/fashion-mnist): copied and verified instead of downloaded")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	var list []string
	for _, d := range strings.Split(*domains, ",") {
		if d = strings.TrimSpace(d); d != "" {
			list = append(list, d)
		}
	}
	if len(list) == 0 {
		return errors.New("-domains: no data set named")
	}
	base := *mnist
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	d := fetch.Dir(*dir)
	if err := fetch.Fetch(ctx, d, list, fetch.Options{Files: fetch.Files(base), Force: *force, Progress: os.Stderr, From: *from}); err != nil {
		return err
	}
	fmt.Printf("%s verified in %s\n", strings.Join(list, ", "), d)
	return nil
}
