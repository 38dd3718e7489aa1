package main

import (
	"os"
	"testing"
)

// TestMain lets this test binary serve as a study's worker process, as the
// ecl binary does (a study run in a test starts workers of the running
// executable).
func TestMain(m *testing.M) {
	if isWorker() {
		main()
		os.Exit(0)
	}
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}
