// Package digitstest writes small digit-domain files in the formats and the
// folder layout the digits package reads, for tests that cannot count on
// the real files: IDX encodes an IDX file, Write writes one (gzipped for a
// .gz name), and Domains writes whole MNIST and USPS domains into a data
// directory:
//
//	dir := t.TempDir()
//	digitstest.Domains(t, dir, 40) // 40 training and 20 test images each
//	task, err := digits.NewTask(dir, digits.TaskOptions{Target: "mnist"})
package digitstest
