// Package images reads folders of JPEG and PNG images into the float32
// tensors torchvision's evaluation transform makes of them.
//
// Two layouts are read. Folder is torchvision's ImageFolder convention:
// one subfolder per class, the class index the folder's place among the
// sorted folder names, the images under each class folder (searched
// recursively, symbolic links followed) in torchvision's order. Flat is
// every image under a folder, searched recursively, in sorted path order,
// without labels.
//
// Decode reads an image with Go's standard library (image/jpeg,
// image/png) and converts it to 8-bit RGB as PIL's convert("RGB") does:
// grey is repeated, alpha dropped, palettes looked up, CMYK converted with
// PIL's formula, and the chroma of subsampled JPEGs upsampled with
// libjpeg's "fancy" triangle filter and libjpeg's YCbCr conversion, so
// that the pixels are those PIL gives (up to the ±1 differences of the
// two decoders' inverse DCTs). An image's header is checked against a
// pixel limit before anything is decoded.
//
// Transform is torchvision's evaluation transform: the shorter side
// resized to Resize with PIL's bilinear filter (a triangle filter whose
// support grows with the downscale factor, in PIL's fixed-point
// arithmetic), a centre crop of Crop×Crop, scaled to [0, 1] and
// normalised per channel (ImageNet's mean and standard deviation by
// default), as float32 in CHW order.
//
// Load decodes and transforms a list of images on a bounded pool of
// workers. A bad file (truncated, not an image, too large) is an *Error
// naming it, or, with Skip, counted and left out.
package images
