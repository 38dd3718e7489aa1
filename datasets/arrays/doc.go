// Package arrays reads numeric matrices from CSV, NumPy .npy and .npz
// files, such as the predictions and labels that "ecl eval" evaluates, and
// writes .npy files (WriteNPY), such as the calibrated probabilities of
// "ecl calibrate". Readers check every size against the file before
// allocating, and errors name the file and the problem.
package arrays
