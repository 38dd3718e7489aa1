// Package datasets holds Split, the one type in which every dataset hands
// out its samples and the training code takes them: a name for messages
// ("usps test"), inputs X [N, …] and labels Y. Check reports a split whose
// inputs and labels disagree as a *SplitError naming it; Rows, Concat and
// To select, merge and move samples.
//
// The datasets are its subpackages: sim (the simulated covariate shifts),
// digits (MNIST, USPS, SVHN and the rendered synth domain) and images
// (folders of image domains, such as PACS) produce Splits; arrays reads
// and writes matrices in CSV and NumPy files, and fetch downloads the
// digit files.
package datasets
