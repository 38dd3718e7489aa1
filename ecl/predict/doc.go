// Package predict reads a model's saved predictions and labels (CSV, text,
// NumPy .npy or .npz[:array], through datasets/arrays) and decides, with one
// detector, whether a file holds probabilities or logits.
//
// Detect is that detector: a file holds probabilities when every entry lies
// in [0, 1] and every row (of two or more columns) sums to 1 within
// RoundTol, the rounding of values written to a few decimals. Anything else
// is logits. A single column is binary: P(y = 1), or the logit of class 1.
//
// Two readers build on it. ReadProbabilities returns checked [N, K]
// probabilities for metrics (softmax applied to logits, rounded rows
// renormalised), as "ecl eval" reads its inputs. ReadScores returns [N, K]
// logits for calibrators (ln p for probabilities), as "ecl calibrate"
// reads them. Both record how the file was read and what was repaired, so
// that a program can report it; errors are *FileError and name the file and
// the offending row. Notes and errors name the modes as the ecl command's
// -input flag spells them ("-input probs", "-input logits"), which are the
// Mode values.
package predict
