// Package arrays reads numeric matrices from CSV, NumPy .npy and .npz
// files, such as the predictions and labels that "ecl eval" evaluates, and
// writes .npy files (WriteNPY), such as the calibrated probabilities of
// "ecl calibrate", and .npz archives of numbers and strings (WriteNPZ,
// ReadNPZStrings), such as the logits, features and paths of "ecl
// features". Readers check every size against the file before
// allocating, and errors name the file and the problem.
package arrays
