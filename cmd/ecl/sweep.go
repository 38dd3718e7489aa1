package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/ecl-go/ecl/internal/atomicfile"
)

// studies are the commands a sweep runs; with check, one parses and
// validates its command line and returns without running anything.
var studies = map[string]func(args []string, check bool) error{"sim": simStudy, "digits": digitsStudy, "images": imagesStudy}

// sweepFile is what -emit leaves in the output directory for ecl report:
// the job list, to name the jobs that never ran.
type sweepFile struct {
	Command string `json:"command"`
	Jobs    []job  `json:"jobs"`
}

var intRange = regexp.MustCompile(`^(-?[0-9]+):(-?[0-9]+)$`)

// resources are what each job of a cluster script asks for.
type resources struct {
	cpus, memMiB, gpus, parallel int
	time, partition, name, image string
	pvc                          string
}

// runSweep is "ecl sweep": expands a grid into jobs, runs one of them, or
// writes a Slurm job array, a Kubernetes Indexed Job or a command list
// that runs every job.
func runSweep(args []string) error {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: ecl sweep [flags] [sim|digits STUDY-FLAGS…]\n\n"+
			"Expands a grid into jobs: every combination of the -vary values (or a -grid file's),\n"+
			"added to the study command and its fixed flags, each job writing into -out/<name>.\n"+
			"Without -run or -emit, lists the jobs.\n\n")
		fs.PrintDefaults()
	}
	var vary varyFlag
	fs.Var(&vary, "vary", "flag=v1,v2,… of the study command to vary (repeatable; a:b is the integers a to b; values holding commas need -grid)")
	gridPath := fs.String("grid", "", `grid file (JSON: {"command": "digits", "args": ["-epochs", "100"], "vary": [{"flag": "target", "values": ["mnist", "usps"]}]}); -vary and a command line add to it`)
	out := fs.String("out", "out/sweep", "output directory: each job's study writes into a folder of it")
	run := fs.Int("run", -1, "run job I alone (a job array task: $SLURM_ARRAY_TASK_ID, $JOB_COMPLETION_INDEX)")
	emit := fs.String("emit", "", "write a script running every job: slurm (sbatch job array), k8s (Indexed Job manifest) or list (one shell command per job)")
	script := fs.String("o", "", "file for the -emit script (default: standard output)")
	var r resources
	fs.IntVar(&r.cpus, "cpus", 2, "CPUs per job")
	fs.IntVar(&r.memMiB, "mem", 4096, "memory per job, MiB")
	fs.IntVar(&r.gpus, "gpus", 0, "GPUs per job")
	fs.StringVar(&r.time, "time", "04:00:00", "Slurm time limit per job")
	fs.IntVar(&r.parallel, "parallel", 0, "jobs running at once (Slurm %M, Kubernetes parallelism; 0: no limit)")
	fs.StringVar(&r.partition, "partition", "", "Slurm partition")
	fs.StringVar(&r.name, "name", "ecl-sweep", "job name")
	fs.StringVar(&r.image, "image", "ecl:latest", "Kubernetes container image holding the ecl binary")
	fs.StringVar(&r.pvc, "pvc", "", "Kubernetes persistent volume claim mounted at -out (shared by the jobs)")
	bin := fs.String("bin", "", "path of the ecl binary the scripts call (default: this one)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var g grid
	if *gridPath != "" {
		b, err := os.ReadFile(*gridPath)
		if err != nil {
			return err
		}
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&g); err != nil {
			return fmt.Errorf("sweep: grid file %s: %w", *gridPath, err)
		}
	}
	if rest := fs.Args(); len(rest) > 0 {
		if g.Command != "" && g.Command != rest[0] {
			return fmt.Errorf("sweep: command %s on the command line, %s in %s", rest[0], g.Command, *gridPath)
		}
		g.Command, g.Args = rest[0], append(g.Args, rest[1:]...)
	}
	g.Vary = append(g.Vary, vary...)
	jobs, err := g.jobs(*out)
	if err != nil {
		return err
	}
	// Every job's command line is checked before anything is written or
	// run: a flag the study lacks or a setting it refuses would otherwise
	// stop each job of a submitted array. The job of -run (a script's
	// task) checks the grid again as it starts.
	if err := checkJobs(g.Command, jobs); err != nil {
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
	if *bin == "" && *emit == "k8s" {
		*bin = "ecl" // the image's
	}
	self, err := sweepCommand(*bin, *gridPath, *out, g.Command, fs.Args(), vary)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(*out, "logs"), 0o755); err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(*out, "sweep.json"), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(sweepFile{Command: g.Command, Jobs: jobs})
	}); err != nil {
		return err
	}
	write := func(w io.Writer) error { return emitScript(w, *emit, self, *out, jobs, r) }
	if *script == "" {
		return write(os.Stdout)
	}
	return atomicfile.Write(*script, write)
}

// sweepCommand returns the shell command that runs job I of this sweep
// (I a shell word): the binary, the grid file and the output directory
// made absolute.
func sweepCommand(bin, gridPath, out, command string, rest []string, vary varyFlag) (func(i string) string, error) {
	if bin == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		if strings.Contains(exe, "go-build") {
			return nil, errors.New("sweep: this binary is go run's temporary one; build ecl (go build ./cmd/ecl) or name it with -bin")
		}
		bin = exe
	}
	abs := func(p string) string {
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return p
	}
	words := []string{bin, "sweep", "-out", abs(out)}
	if gridPath != "" {
		words = append(words, "-grid", abs(gridPath))
	}
	for _, a := range vary {
		words = append(words, "-vary", a.Flag+"="+strings.Join(a.Values, ","))
	}
	if len(rest) == 0 && gridPath == "" {
		rest = []string{command}
	}
	quote := func(ws []string) string {
		q := make([]string, len(ws))
		for i, w := range ws {
			q[i] = shellQuote(w)
		}
		return strings.Join(q, " ")
	}
	head, tail := quote(words), quote(rest)
	return func(i string) string { return strings.TrimSpace(head + " -run " + i + " " + tail) }, nil
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)
