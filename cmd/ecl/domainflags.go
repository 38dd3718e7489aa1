package main

// What ecl digits and ecl images share: the training flags and the run of
// a domain-shift study, from the worker check to the results files.

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ecl-go/ecl/ecl/plot"
	"github.com/ecl-go/ecl/experiment"
	"github.com/ecl-go/ecl/experiment/report"
)

// domainFlags are a domain study's flags besides the study's and the
// data's.
type domainFlags struct {
	name               string
	auxData, out       *string
	auxSoftECE, quiet  *bool
	device             *string
	style              *plot.DiagramStyle
	profiled           func(study func() error) error
	training           *experiment.Training
	start              time.Time
	runs               int
	epochs, aux, tuned int
}

// addDomainFlags registers the flags of t and the study's output on fs,
// for the command name ("digits", "images").
func addDomainFlags(fs *flag.FlagSet, t *experiment.Training, name string) *domainFlags {
	f := &domainFlags{name: name, training: t}
	fs.IntVar(&t.Epochs, "epochs", 10, "epochs of the base network (the paper: 100)")
	fs.IntVar(&t.AuxEpochs, "aux-epochs", 0, "epochs of the auxiliary head (0: -epochs)")
	fs.IntVar(&t.ECLEpochs, "ecl-epochs", 0, "epochs of the fine-tuning stages (0: -epochs)")
	fs.IntVar(&t.Batch, "batch", 100, "batch size (the paper: 100)")
	fs.Float64Var(&t.LR, "lr", 1e-3, "Adam learning rate (the paper: 1e-3)")
	f.auxData = fs.String("aux-data", "heldout", "comma list of the source samples the auxiliary head is trained on, one ECL row each: heldout (the held-out source split, -val), train (the backbone's training split), oracle (the labelled target training split) or oracle-both (that and the held-out source); the oracles are diagnostics")
	f.auxSoftECE = fs.Bool("aux-softece", true, "calibrate the top-label auxiliary head with Soft-ECE on the source, as the paper does")
	fs.IntVar(&t.CheckpointEvery, "checkpoint-every", 1, "epochs between the training stages' checkpoints in -out/checkpoints, each stage's last epoch checkpointed too (a killed run resumes from the last, bit for bit)")
	fs.StringVar(&t.BaseCache, "base-cache", "", "directory of trained base networks, reused by runs with the same architecture, data, split, seed and base schedule (empty: none)")
	fs.BoolVar(&t.WholeNetwork, "ecl-whole", false, "the ECL stage and the fine-tuning baselines train the backbone too, on the images (default: the main head alone on the frozen backbone's features, as the reference code)")
	fs.BoolVar(&t.NonTrainable, "nontrainable", false, "use the soft-binned estimator on each mini-batch instead of Algorithm 1 (the paper's Table 7)")
	f.out = fs.String("out", "out/"+name, "directory for one result file per run (runs/), results.json, results.csv and reliability diagrams (empty: none)")
	f.style = diagramFlags(fs)
	f.profiled = profiles(fs)
	f.quiet = fs.Bool("quiet", false, "no progress messages")
	f.device = fs.String("device", "cpu", "where the base network trains: cpu, or cuda (GPU 0; needs a build with -tags cuda); the later stages train on its features on the CPU")
	return f
}

// parsed opens the device (checks its name with check) and stores the
// flags that need parsing in t.
func (f *domainFlags) parsed(check bool) error {
	t := f.training
	var err error
	if check {
		err = checkDevice(*f.device)
	} else {
		t.Device, t.Dev, err = openDevice[float32](*f.device)
	}
	t.AuxData, t.AuxCE = strings.Split(*f.auxData, ","), !*f.auxSoftECE
	return err
}

// logs sets t's log (unless -quiet), timed from now.
func (f *domainFlags) logs() {
	f.start = time.Now()
	if *f.quiet {
		return
	}
	f.training.Log = func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "%8s  %s\n", time.Since(f.start).Round(time.Second), fmt.Sprintf(format, args...))
	}
}

// run runs the study s (runAll; runOne in a worker process) and prints
// its tables under the heading head, then writes the results files.
func (f *domainFlags) run(s *experiment.Study, args []string, runAll func() ([]experiment.Result, error), runOne func(int) ([]experiment.Result, error), head string) error {
	if isWorker() {
		return serveRuns(runOne)
	}
	if !*f.quiet {
		// Lines, on a terminal too: the log's lines would break a bar.
		p := newProgress(os.Stderr, "ecl "+f.name, "runs", false)
		p.begin(s.Runs)
		f.training.Progress = p.update
	}
	defer useWorkers(s, f.name, args, nil)()
	var results []experiment.Result
	err := f.profiled(func() (err error) {
		results, err = runAll()
		return err
	})
	if err != nil {
		return err
	}
	t := f.training
	orEpochs := func(n int) int { // the stages' epochs as they ran (0: -epochs)
		if n == 0 {
			return t.Epochs
		}
		return n
	}
	summaries := experiment.Summarize(results)
	head += fmt.Sprintf(", %d runs from seed %d, epochs %d base, %d auxiliary head, %d fine-tuning, batch %d, lr %g", s.Runs, s.Seed, t.Epochs, orEpochs(t.AuxEpochs), orEpochs(t.ECLEpochs), t.Batch, t.LR)
	report.StudyTables(os.Stdout, head, summaries, time.Since(f.start))
	_, unfit := experiment.Fitted(results)
	printUnfit(os.Stdout, unfit)
	experiment.WriteDiagnostics(os.Stdout, results)
	return writeAll(*f.out, args, results, summaries, *f.style)
}
