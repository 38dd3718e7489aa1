package main

import (
	"bytes"
	"flag"
	"io"
	"runtime/pprof"

	"github.com/ecl-go/ecl/internal/atomicfile"
)

// profiles registers -cpuprofile and -memprofile on fs. After parsing, run
// calls study under the CPU profiler when -cpuprofile was given and, when
// -memprofile was, writes the allocation profile (every allocation the run
// made, by call site: go tool pprof -sample_index=alloc_space) after it
// returns. Profiles are written atomically; study's error comes first.
func profiles(fs *flag.FlagSet) (run func(study func() error) error) {
	cpu := fs.String("cpuprofile", "", "write a CPU profile of the run to this file (go tool pprof)")
	mem := fs.String("memprofile", "", "write the run's allocation profile to this file (go tool pprof -sample_index=alloc_space, or inuse_space for what was live at the last collection)")
	return func(study func() error) error {
		var buf bytes.Buffer
		if *cpu != "" {
			if err := pprof.StartCPUProfile(&buf); err != nil {
				return err
			}
		}
		err := study()
		if *cpu != "" {
			pprof.StopCPUProfile()
			if werr := atomicfile.Write(*cpu, func(w io.Writer) error { _, err := buf.WriteTo(w); return err }); err == nil {
				err = werr
			}
		}
		if *mem != "" {
			if werr := atomicfile.Write(*mem, func(w io.Writer) error { return pprof.Lookup("allocs").WriteTo(w, 0) }); err == nil {
				err = werr
			}
		}
		return err
	}
}
