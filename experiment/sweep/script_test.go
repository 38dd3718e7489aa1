package sweep

import (
	"strings"
	"testing"
)

func TestScripts(t *testing.T) {
	cmd := func(i string) string { return "/bin/ecl sweep -out /o -run " + i + " sim -runs 1" }
	r := Resources{CPUs: 3, MemMiB: 2048, GPUs: 1, Parallel: 2, Time: "1:00:00", Name: "n", Image: "img", PVC: "claim"}
	jobs, err := Grid{Command: "sim", Vary: []Axis{{"seed", []string{"1:6"}}}}.Jobs("/o")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := Script(&b, "slurm", cmd, "/o", jobs, r); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"#SBATCH --array=0-5%2", "#SBATCH --cpus-per-task=3", "#SBATCH --mem=2048M", "#SBATCH --gres=gpu:1", `exec /bin/ecl sweep -out /o -run "$SLURM_ARRAY_TASK_ID" sim -runs 1`} {
		if !strings.Contains(b.String(), line+"\n") {
			t.Errorf("slurm script lacks %q:\n%s", line, b.String())
		}
	}
	b.Reset()
	if err := Script(&b, "k8s", cmd, "/o", jobs, r); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"completionMode: Indexed", "completions: 6", "parallelism: 2", `\"$JOB_COMPLETION_INDEX\" sim -runs 1"]`, "nvidia.com/gpu: 1", `claimName: "claim"`} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("k8s manifest lacks %q:\n%s", line, b.String())
		}
	}
	b.Reset()
	// Each line of a list says which settings its job has.
	want := cmd("0") + "  # job 0: -seed=1 -out /o/seed=1\n" + cmd("1") + "  # job 1: -seed=2 -out /o/seed=2\n"
	if err := Script(&b, "list", cmd, "/o", jobs[:2], r); err != nil || b.String() != want {
		t.Errorf("list: %q, %v; want %q", b.String(), err, want)
	}
	if err := Script(&b, "pbs", cmd, "/o", jobs, r); err == nil {
		t.Error("unknown kind accepted")
	}
	if got := shellQuote("it's a b"); got != `'it'\''s a b'` {
		t.Errorf("shellQuote: %s", got)
	}
}

// Command names the binary, the absolute output folder and grid file, the
// axes and the command line, quoted for a shell.
func TestCommand(t *testing.T) {
	c := Command("/bin/ecl", "/g/grid.json", "/o", "sim", []string{"sim", "-methods", "ts cpcs"}, []Axis{{"seed", []string{"1", "2"}}})
	if got, want := c("7"), `/bin/ecl sweep -out /o -grid /g/grid.json -vary seed=1,2 -run 7 sim -methods 'ts cpcs'`; got != want {
		t.Errorf("command %q, want %q", got, want)
	}
	if got, want := Command("/bin/ecl", "", "/o", "digits", nil, nil)("$I"), `/bin/ecl sweep -out /o -run $I digits`; got != want {
		t.Errorf("command %q, want %q", got, want)
	}
}
