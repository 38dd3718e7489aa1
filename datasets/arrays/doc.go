// Package arrays reads numeric matrices from CSV and NumPy .npy files, such
// as the predictions and labels that "ecl eval" evaluates. Readers check
// every size against the file before allocating, and errors name the file
// and the problem.
package arrays
