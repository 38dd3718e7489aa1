package main

import (
	"bytes"
	"flag"
	"io"
	"runtime/pprof"

	"github.com/ecl-go/ecl/internal/atomicfile"
)

// cpuProfile registers -cpuprofile on fs. After parsing, run calls study
// under the CPU profiler when the flag was given, and writes the profile
// (atomically) when it returns; study's error comes first.
func cpuProfile(fs *flag.FlagSet) (run func(study func() error) error) {
	path := fs.String("cpuprofile", "", "write a CPU profile of the run to this file (go tool pprof)")
	return func(study func() error) error {
		if *path == "" {
			return study()
		}
		var buf bytes.Buffer
		if err := pprof.StartCPUProfile(&buf); err != nil {
			return err
		}
		err := study()
		pprof.StopCPUProfile()
		if werr := atomicfile.Write(*path, func(w io.Writer) error { _, err := buf.WriteTo(w); return err }); err == nil {
			err = werr
		}
		return err
	}
}
