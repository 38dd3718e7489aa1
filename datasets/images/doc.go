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
// OpenDomains reads a dataset of several domains of the same classes
// (PACS, ImageNet-Sketch): a root holding one ImageFolder tree per domain.
// A domain that lacks a class the others have, or has no classes, is an
// error naming it. PACS's official split lists
// (<domain>_{train,crossval,test}_kfold.txt, lines
// "art_painting/dog/pic_225.jpg 1", labels from 1) are read when present
// and checked against the folders. A manifest of every image's size and
// SHA-256 is written on the first call and checked on the later ones, so
// that a study's results are keyed by the images they came from and a
// file changed since is an error naming it.
//
// TrainTransform is torchvision's training transform: RandomResizedCrop
// (the box drawn by torchvision's algorithm, ten tries then the central
// fallback, cropped and resized with the same bilinear filter),
// RandomHorizontalFlip and the normalisation, every random choice from a
// *rand.Rand; Stream gives each image of an epoch its own stream of a
// seed.
//
// Load decodes and transforms a list of images on a bounded pool of
// workers; LoadFrom and LoadTrain do so for the images of a Reader (Files
// decodes them, a Cache reads them back). A bad file (truncated, not an
// image, too large) is an *Error naming it, or, with Skip, counted and
// left out.
//
// OpenCache keeps a list's images decoded, prepared (Prep: the shorter
// side resized as the evaluation transform resizes it, which then gives
// the files' tensors byte for byte, or bounded for the training transform)
// and stored as 8-bit RGB in shard files, keyed by the files' checksums
// and the settings: a cache of other images or settings is rebuilt, a
// killed build resumes after its last complete shard, and a shard whose
// header or table disagrees with its size is a *CacheError naming the
// file and the offset.
package images
