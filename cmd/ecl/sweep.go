package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ecl-go/ecl/experiment/sweep"
	"github.com/ecl-go/ecl/internal/atomicfile"
)

// studies are the commands a sweep runs; with check, one parses and
// validates its command line and returns without running anything.
var studies = map[string]func(args []string, check bool) error{"sim": simStudy, "digits": digitsStudy, "images": imagesStudy, "shifts": shiftsStudy}

// runSweep is "ecl sweep": expands a grid into jobs, runs one of them, or
// writes a Slurm job array, a Kubernetes Indexed Job or a command list
// that runs every job.
func runSweep(args []string) error {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: ecl sweep [flags] [sim|digits|images|shifts STUDY-FLAGS…]\n\n"+
			"Expands a grid into jobs: every combination of the -vary values (or a -grid file's),\n"+
			"added to the study command and its fixed flags, each job writing into -out/<name>.\n"+
			"Without -run or -emit, lists the jobs.\n\n")
		fs.PrintDefaults()
	}
	var vary sweep.Vary
	fs.Var(&vary, "vary", "flag=v1,v2,… of the study command to vary (repeatable; a:b is the integers a to b; values holding commas need -grid)")
	gridPath := fs.String("grid", "", `grid file (JSON: {"command": "digits", "args": ["-epochs", "100"], "vary": [{"flag": "target", "values": ["mnist", "usps"]}]}); -vary and a command line add to it`)
	out := fs.String("out", "out/sweep", "output directory: each job's study writes into a folder of it")
	run := fs.Int("run", -1, "run job I alone (a job array task: $SLURM_ARRAY_TASK_ID, $JOB_COMPLETION_INDEX)")
	emit := fs.String("emit", "", "write a script running every job: slurm (sbatch job array), k8s (Indexed Job manifest) or list (one shell command per job)")
	script := fs.String("o", "", "file for the -emit script (default: standard output)")
	r := resourceFlags(fs)
	bin := fs.String("bin", "", "path of the ecl binary the scripts call (default: this one)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	g, jobs, err := sweepJobs(*gridPath, fs.Args(), vary, *out)
	if err != nil {
		return err
	}
	switch {
	case *run >= 0:
		if *run >= len(jobs) {
			return fmt.Errorf("sweep: -run %d, but the grid has %d jobs (0 to %d)", *run, len(jobs), len(jobs)-1)
		}
		j := jobs[*run]
		fmt.Fprintf(os.Stderr, "ecl sweep: job %d/%d %s: ecl %s\n", j.Index, len(jobs), j.Name, strings.Join(j.Args, " "))
		return studies[g.Command](j.Args[1:], false)
	case *emit == "":
		for _, j := range jobs {
			fmt.Printf("%d\t%s\tecl %s\n", j.Index, j.Name, strings.Join(j.Args, " "))
		}
		return nil
	}
	self, err := sweepBinary(*bin, *emit)
	if err != nil {
		return err
	}
	command := sweep.Command(self, *gridPath, *out, g.Command, fs.Args(), vary)
	if err := sweep.WriteFile(*out, sweep.File{Command: g.Command, Jobs: jobs}); err != nil {
		return err
	}
	write := func(w io.Writer) error { return sweep.Script(w, *emit, command, *out, jobs, *r) }
	if *script == "" {
		return write(os.Stdout)
	}
	return atomicfile.Write(*script, write)
}

// resourceFlags registers the flags of what each job of a script asks
// for.
func resourceFlags(fs *flag.FlagSet) *sweep.Resources {
	var r sweep.Resources
	fs.IntVar(&r.CPUs, "cpus", 2, "CPUs per job")
	fs.IntVar(&r.MemMiB, "mem", 4096, "memory per job, MiB")
	fs.IntVar(&r.GPUs, "gpus", 0, "GPUs per job")
	fs.StringVar(&r.Time, "time", "04:00:00", "Slurm time limit per job")
	fs.IntVar(&r.Parallel, "parallel", 0, "jobs running at once (Slurm %M, Kubernetes parallelism; 0: no limit)")
	fs.StringVar(&r.Partition, "partition", "", "Slurm partition")
	fs.StringVar(&r.Name, "name", "ecl-sweep", "job name")
	fs.StringVar(&r.Image, "image", "ecl:latest", "Kubernetes container image holding the ecl binary")
	fs.StringVar(&r.PVC, "pvc", "", "Kubernetes persistent volume claim mounted at -out (shared by the jobs)")
	return &r
}

// sweepJobs reads the grid (a -grid file, -vary and the command line
// rest) and expands it into jobs writing into out. Every job's command
// line is checked, with its study's own flag set and settings checks,
// before anything is written or run: a flag the study lacks or a setting
// it refuses would otherwise stop each job of a submitted array. The job
// of -run (a script's task) checks the grid again as it starts.
func sweepJobs(gridPath string, rest []string, vary sweep.Vary, out string) (sweep.Grid, []sweep.Job, error) {
	g, err := sweep.Load(gridPath, rest, vary)
	if err != nil {
		return g, nil, err
	}
	if studies[g.Command] == nil {
		return g, nil, fmt.Errorf("sweep: unknown study command %q (want sim, digits, images or shifts)", g.Command)
	}
	jobs, err := g.Jobs(out)
	if err != nil {
		return g, nil, err
	}
	for _, j := range jobs {
		if err := studies[g.Command](j.Args[1:], true); err != nil {
			return g, nil, fmt.Errorf("job %d (%s) would fail: %w (its command line: ecl %s)", j.Index, j.Name, err, strings.Join(j.Args, " "))
		}
	}
	return g, jobs, nil
}

// sweepBinary is the ecl binary a script calls: bin, else the image's
// for k8s, else this one (refused when go run built it, in a temporary
// folder).
func sweepBinary(bin, emit string) (string, error) {
	switch {
	case bin != "":
		return bin, nil
	case emit == "k8s":
		return "ecl", nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if strings.Contains(exe, "go-build") {
		return "", errors.New("sweep: this binary is go run's temporary one; build ecl (go build ./cmd/ecl) or name it with -bin")
	}
	return exe, nil
}
