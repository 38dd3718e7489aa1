// Package report renders the results of studies (package experiment):
// the tables a study prints as it ends, its results files and reliability
// diagrams, and the report that merges the run records of any number of
// studies and sweeps.
//
// Load reads the run records under some folders into a Report; its
// tables come as text (the layout of README.md's sim table), Markdown,
// LaTeX (booktabs) or CSV (Write), Compare adds paired per-seed
// differences between two methods with bootstrap intervals, and WriteDir
// writes every format, a figure per metric and the reliability diagram
// grids into a folder. StudyTables, WriteResults and WriteStudyDiagrams
// are what a study command writes when its runs are done.
package report
