// Package imagestest writes small random image folders, JPEG and PNG of
// random sizes and colour models, in the layouts package images reads, for
// tests that cannot count on real image datasets.
package imagestest
