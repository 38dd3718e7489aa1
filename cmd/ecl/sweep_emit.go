package main

// The scripts ecl sweep emits for a cluster (Slurm, Kubernetes, a shell list).

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
)

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
