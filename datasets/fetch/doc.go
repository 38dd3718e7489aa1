// Package fetch downloads the public digit data sets into a data directory
// and verifies them: MNIST (four IDX .gz files), USPS (the two text .gz files
// of The Elements of Statistical Learning) and SVHN (the cropped-digit .mat
// files). Each file lands in DIR/DOMAIN/NAME, where the digits readers and
// the experiments look for it:
//
//	DIR/mnist/train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz,
//	          t10k-images-idx3-ubyte.gz, t10k-labels-idx1-ubyte.gz
//	DIR/usps/zip.train.gz, zip.test.gz
//	DIR/svhn/train_32x32.mat, test_32x32.mat
//
// Fetch downloads the files of the domains asked for (all for none):
//
//	err := fetch.Fetch(ctx, fetch.Dir(""), []string{"mnist", "usps"}, fetch.Options{Progress: os.Stderr})
//
// Dir resolves the data directory from a flag, $ECL_DATA or DefaultDir;
// Files is the table of URLs, sizes and checksums, which Options.Files
// replaces (for a mirror, or a test server).
//
// A download goes to a temporary file beside its target and is renamed to
// the final name only once its size and checksum are right, so an
// interrupted or corrupt download never leaves a file that looks complete. A
// file already present with the right checksum is not downloaded again; one
// with a wrong checksum is an error unless Options.Force is set.
package fetch
