package sweep

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Resources are what each job of a cluster script asks for.
type Resources struct {
	CPUs, MemMiB, GPUs int
	// Parallel is the number of jobs running at once (0: no limit).
	Parallel int
	// Time is Slurm's time limit per job, Partition its partition.
	Time, Partition string
	// Name is the job's name, Image the Kubernetes container image.
	Name, Image string
	// PVC is a Kubernetes persistent volume claim mounted at the output
	// directory (none when empty).
	PVC string
}

// Command returns the shell command that runs job I of a sweep (I a shell
// word) with the ecl binary bin: its grid file gridPath (none when empty),
// output directory out (both made absolute), varied flags vary and command
// line rest (the study command and its flags; the command alone when both
// rest and gridPath are empty).
func Command(bin, gridPath, out, command string, rest []string, vary []Axis) func(i string) string {
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
	return func(i string) string { return strings.TrimSpace(head + " -run " + i + " " + tail) }
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

// Script writes the script of the given kind that runs the jobs, job I
// with command(I): "slurm" (an sbatch job array logging into out/logs),
// "k8s" (an Indexed Job manifest) or "list" (one shell command a line,
// ending with a comment naming the job's settings).
func Script(w io.Writer, kind string, command func(i string) string, out string, jobs []Job, r Resources) error {
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
		if r.Parallel > 0 {
			array += fmt.Sprintf("%%%d", r.Parallel)
		}
		logs, _ := filepath.Abs(filepath.Join(out, "logs"))
		fmt.Fprintf(&b, "#!/bin/bash\n# ecl sweep: %d jobs, one per array task (submit with sbatch; resubmitting\n# skips the runs whose result files are there). Each task checks every job's\n# flags and settings before it runs its own.\n", n)
		fmt.Fprintf(&b, "#SBATCH --job-name=%s\n#SBATCH --array=%s\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=%d\n#SBATCH --mem=%dM\n#SBATCH --time=%s\n", r.Name, array, r.CPUs, r.MemMiB, r.Time)
		if r.GPUs > 0 {
			fmt.Fprintf(&b, "#SBATCH --gres=gpu:%d\n", r.GPUs)
		}
		if r.Partition != "" {
			fmt.Fprintf(&b, "#SBATCH --partition=%s\n", r.Partition)
		}
		fmt.Fprintf(&b, "#SBATCH --output=%s/%%x-%%A_%%a.out\nset -euo pipefail\nexport GOMAXPROCS=\"${SLURM_CPUS_PER_TASK:-%d}\"\nexec %s\n", logs, r.CPUs, command(`"$SLURM_ARRAY_TASK_ID"`))
	case "k8s":
		parallel := r.Parallel
		if parallel <= 0 {
			parallel = n
		}
		fmt.Fprintf(&b, "# ecl sweep: %d jobs as an Indexed Job (kubectl apply -f); the pods share -out through the volume.\n", n)
		fmt.Fprintf(&b, "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: %s\nspec:\n  completionMode: Indexed\n  completions: %d\n  parallelism: %d\n  backoffLimit: %d\n", jsonString(r.Name), n, parallel, 2*n)
		fmt.Fprintf(&b, "  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: ecl\n        image: %s\n", jsonString(r.Image))
		fmt.Fprintf(&b, "        command: [\"/bin/sh\", \"-c\", %s]\n", jsonString("exec "+command(`"$JOB_COMPLETION_INDEX"`)))
		fmt.Fprintf(&b, "        env:\n        - name: GOMAXPROCS\n          value: \"%d\"\n", r.CPUs)
		limits := fmt.Sprintf("cpu: \"%d\"\n            memory: %dMi\n", r.CPUs, r.MemMiB)
		fmt.Fprintf(&b, "        resources:\n          requests:\n            %s          limits:\n            %s", limits, limits)
		if r.GPUs > 0 {
			fmt.Fprintf(&b, "            nvidia.com/gpu: %d\n", r.GPUs)
		}
		if r.PVC != "" {
			abs, _ := filepath.Abs(out)
			fmt.Fprintf(&b, "        volumeMounts:\n        - name: out\n          mountPath: %s\n      volumes:\n      - name: out\n        persistentVolumeClaim:\n          claimName: %s\n", jsonString(abs), jsonString(r.PVC))
		}
	default:
		return fmt.Errorf("sweep: -emit %q: want slurm, k8s or list", kind)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
