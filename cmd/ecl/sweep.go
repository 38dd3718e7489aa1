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
	"strconv"
	"strings"

	"github.com/ecl-go/ecl/internal/atomicfile"
)

// studies are the commands a sweep runs; with check, one parses and
// validates its command line and returns without running anything.
var studies = map[string]func(args []string, check bool) error{"sim": simStudy, "digits": digitsStudy}

// grid is a sweep: a study command, its fixed flags, and the flags whose
// values vary; the jobs are every combination (the last axis fastest).
type grid struct {
	Command string   `json:"command"`
	Args    []string `json:"args,omitempty"`
	Vary    []axis   `json:"vary"`
}

// axis is one varied flag (without its dash) and its values; "a:b" stands
// for the integers a to b.
type axis struct {
	Flag   string   `json:"flag"`
	Values []string `json:"values"`
}

// job is one combination of a grid: its study runs alone, with its own
// output directory.
type job struct {
	Index int      `json:"index"`
	Name  string   `json:"name"`
	Dir   string   `json:"dir"`
	Args  []string `json:"args"`
	// Settings are the varied flags of Args, as -flag=value.
	Settings []string `json:"settings,omitempty"`
}

// sweepFile is what -emit leaves in the output directory for ecl report:
// the job list, to name the jobs that never ran.
type sweepFile struct {
	Command string `json:"command"`
	Jobs    []job  `json:"jobs"`
}

// varyFlag collects repeated -vary flag=v1,v2,… values.
type varyFlag []axis

func (v *varyFlag) String() string { return fmt.Sprint(*v) }

func (v *varyFlag) Set(s string) error {
	name, values, ok := strings.Cut(s, "=")
	name = strings.TrimLeft(name, "-")
	if !ok || name == "" || values == "" {
		return fmt.Errorf("want flag=v1,v2,…, got %q", s)
	}
	*v = append(*v, axis{Flag: name, Values: strings.Split(values, ",")})
	return nil
}

var intRange = regexp.MustCompile(`^(-?[0-9]+):(-?[0-9]+)$`)

// expand lists an axis's values with "a:b" ranges written out.
func (a axis) expand() ([]string, error) {
	var out []string
	for _, v := range a.Values {
		m := intRange.FindStringSubmatch(v)
		if m == nil {
			out = append(out, v)
			continue
		}
		lo, _ := strconv.Atoi(m[1])
		hi, _ := strconv.Atoi(m[2])
		if hi < lo {
			return nil, fmt.Errorf("-vary %s: empty range %s", a.Flag, v)
		}
		for i := lo; i <= hi; i++ {
			out = append(out, strconv.Itoa(i))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-vary %s: no values", a.Flag)
	}
	return out, nil
}

// jobs expands g into its job list, each job's study writing into
// out/<name>, name made of the varied flags' values.
func (g grid) jobs(out string) ([]job, error) {
	if studies[g.Command] == nil {
		return nil, fmt.Errorf("sweep: unknown study command %q (want sim or digits)", g.Command)
	}
	for _, a := range g.Args {
		if a == "-out" || strings.HasPrefix(a, "-out=") || a == "--out" || strings.HasPrefix(a, "--out=") {
			return nil, errors.New("sweep: -out belongs to the sweep (each job writes into a folder of it)")
		}
	}
	jobs := []job{{}}
	for _, a := range g.Vary {
		values, err := a.expand()
		if err != nil {
			return nil, err
		}
		var next []job
		for _, j := range jobs {
			for _, v := range values {
				name := a.Flag + "=" + v
				if j.Name != "" {
					name = j.Name + "_" + name
				}
				next = append(next, job{Name: name, Args: append(append([]string(nil), j.Args...), "-"+a.Flag+"="+v)})
			}
		}
		jobs = next
	}
	clean := strings.NewReplacer("/", "-", " ", "", ",", "+", "'", "", `"`, "")
	for i := range jobs {
		j := &jobs[i]
		j.Index = i
		if j.Name == "" {
			j.Name = "all"
		}
		j.Name = clean.Replace(j.Name)
		j.Dir = filepath.Join(out, j.Name)
		j.Settings = j.Args
		j.Args = append(append(append([]string{g.Command}, g.Args...), j.Args...), "-out", j.Dir)
	}
	return jobs, nil
}

// checkJobs parses and validates each job's command line with its study's
// own flag set and settings checks, and names the first job that would
// fail and why.
func checkJobs(command string, jobs []job) error {
	for _, j := range jobs {
		if err := studies[command](j.Args[1:], true); err != nil {
			return fmt.Errorf("job %d (%s) would fail: %w (its command line: ecl %s)", j.Index, j.Name, err, strings.Join(j.Args, " "))
		}
	}
	return nil
}

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

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// jsonString is s as a JSON (and so YAML) string.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// emitScript writes the script of the given kind that runs the jobs, job
// I with command(I); a list's lines end with a comment naming each job's
// settings.
func emitScript(w io.Writer, kind string, command func(i string) string, out string, jobs []job, r resources) error {
	var b strings.Builder
	n := len(jobs)
	switch kind {
	case "list":
		for i, j := range jobs {
			dir, err := filepath.Abs(j.Dir)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, "%s  # job %d: %s\n", command(strconv.Itoa(i)), i, strings.Join(append(j.Settings[:len(j.Settings):len(j.Settings)], "-out", dir), " "))
		}
	case "slurm":
		array := fmt.Sprintf("0-%d", n-1)
		if r.parallel > 0 {
			array += fmt.Sprintf("%%%d", r.parallel)
		}
		logs, _ := filepath.Abs(filepath.Join(out, "logs"))
		fmt.Fprintf(&b, "#!/bin/bash\n# ecl sweep: %d jobs, one per array task (submit with sbatch; resubmitting\n# skips the runs whose result files are there). Each task checks every job's\n# flags and settings before it runs its own.\n", n)
		fmt.Fprintf(&b, "#SBATCH --job-name=%s\n#SBATCH --array=%s\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=%d\n#SBATCH --mem=%dM\n#SBATCH --time=%s\n", r.name, array, r.cpus, r.memMiB, r.time)
		if r.gpus > 0 {
			fmt.Fprintf(&b, "#SBATCH --gres=gpu:%d\n", r.gpus)
		}
		if r.partition != "" {
			fmt.Fprintf(&b, "#SBATCH --partition=%s\n", r.partition)
		}
		fmt.Fprintf(&b, "#SBATCH --output=%s/%%x-%%A_%%a.out\nset -euo pipefail\nexport GOMAXPROCS=\"${SLURM_CPUS_PER_TASK:-%d}\"\nexec %s\n", logs, r.cpus, command(`"$SLURM_ARRAY_TASK_ID"`))
	case "k8s":
		parallel := r.parallel
		if parallel <= 0 {
			parallel = n
		}
		fmt.Fprintf(&b, "# ecl sweep: %d jobs as an Indexed Job (kubectl apply -f); the pods share -out through the volume.\n", n)
		fmt.Fprintf(&b, "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: %s\nspec:\n  completionMode: Indexed\n  completions: %d\n  parallelism: %d\n  backoffLimit: %d\n", jsonString(r.name), n, parallel, 2*n)
		fmt.Fprintf(&b, "  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: ecl\n        image: %s\n", jsonString(r.image))
		fmt.Fprintf(&b, "        command: [\"/bin/sh\", \"-c\", %s]\n", jsonString("exec "+command(`"$JOB_COMPLETION_INDEX"`)))
		fmt.Fprintf(&b, "        env:\n        - name: GOMAXPROCS\n          value: \"%d\"\n", r.cpus)
		limits := fmt.Sprintf("cpu: \"%d\"\n            memory: %dMi\n", r.cpus, r.memMiB)
		fmt.Fprintf(&b, "        resources:\n          requests:\n            %s          limits:\n            %s", limits, limits)
		if r.gpus > 0 {
			fmt.Fprintf(&b, "            nvidia.com/gpu: %d\n", r.gpus)
		}
		if r.pvc != "" {
			abs, _ := filepath.Abs(out)
			fmt.Fprintf(&b, "        volumeMounts:\n        - name: out\n          mountPath: %s\n      volumes:\n      - name: out\n        persistentVolumeClaim:\n          claimName: %s\n", jsonString(abs), jsonString(r.pvc))
		}
	default:
		return fmt.Errorf("sweep: -emit %q: want slurm, k8s or list", kind)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
