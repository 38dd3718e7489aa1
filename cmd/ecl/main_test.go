package main

import (
	"maps"
	"os"
	"testing"

	"github.com/ecl-go/ecl/experiment"
)

// TestMain lets this test binary serve as a study's worker process, as the
// ecl binary does (a study run in a test starts workers of the running
// executable), and, with ECL_TEST_MAIN=1, as the ecl command with the tiny
// networks of experiment.TinyArchs among ecl features's -arch.
func TestMain(m *testing.M) {
	if isWorker() {
		main()
		os.Exit(0)
	}
	if os.Getenv("ECL_TEST_MAIN") == "1" {
		maps.Copy(experiment.FeatureArchs, experiment.TinyArchs)
		main()
		os.Exit(0)
	}
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}
