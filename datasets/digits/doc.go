// Package digits reads the digit domains of the paper's domain-shift
// experiment: MNIST (IDX files, raw or gzip; ReadMNIST), USPS (the text
// format of The Elements of Statistical Learning; ReadUSPS) and SVHN (the
// MATLAB v5 files of 32×32 colour crops; ReadSVHN), and renders synth
// (Synth), colour street-number digits that stand in for SVHN where its
// files are absent. Images come back as uint8 values (grey: 0 background;
// colour: RGB planes) with their labels 0–9. Every reader checks what a
// header claims before allocating for it, and errors name the file, the
// offset and the problem.
//
// Load gives one domain's split as network input (3×28×28 in [−1, 1]),
// and NewTask the paper's task: one target domain, the other domains
// merged as the labelled source, with a held-out source split, the
// target's unlabelled training split and its test split:
//
//	task, err := digits.NewTask("data", digits.TaskOptions{Target: "mnist", MaxSource: 10000, Seed: 1})
//
// The files are laid out as package fetch downloads them (ecl data fetch).
package digits
