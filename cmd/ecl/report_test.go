package main

import (
	"strings"
	"testing"
)

// -compare names a method the runs lack and lists those they have; with
// -format none it still prints the differences it was asked for.
func TestReportCompareMessagesAndFormatNone(t *testing.T) {
	_, err := captureStdout(t, func() error {
		return runReport([]string{"-compare", "CE,ECL-toplabel", "../../experiment/report/testdata/sim-default"})
	})
	if err == nil || !strings.Contains(err.Error(), "-compare: no method CE in these runs (want two of Uncal, CE-finetune, ECL-canonical") {
		t.Errorf("error %v", err)
	}
	out, err := captureStdout(t, func() error {
		return runReport([]string{"-compare", "Uncal,ECL-toplabel", "-format", "none", "-metrics", "ECE", "../../experiment/report/testdata/sim-default"})
	})
	if err != nil || !strings.Contains(out, "ECL-toplabel − Uncal, normal, ECE: ") || strings.Contains(out, "method") {
		t.Errorf("-format none with -compare printed %q, %v", out, err)
	}
}
