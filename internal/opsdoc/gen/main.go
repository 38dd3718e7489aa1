// Command gen writes docs/ops.md, the table of the ops across the layers
// (see package opsdoc). Run it from the module root:
//
//	go run ./internal/opsdoc/gen
package main

import (
	"fmt"
	"os"

	"github.com/ecl-go/ecl/internal/opsdoc"
)

func main() {
	if err := opsdoc.Write("."); err != nil {
		fmt.Fprintln(os.Stderr, "opsdoc:", err)
		os.Exit(1)
	}
}
