// Package sweep expands a grid of study flags into jobs and writes the
// scripts that run them on a cluster.
//
// A Grid is a study command (sim, digits, images), its fixed flags and the
// flags whose values vary; Jobs lists every combination, each job's study
// writing into its own folder of the sweep's output directory. WriteFile
// leaves the job list there as sweep.json (ReadFile reads it back, so that
// a report can name the jobs that never started), and Script writes a
// Slurm job array, a Kubernetes Indexed Job or a list of shell commands
// that run job I with the command line Command builds.
package sweep
