package fetch

import (
	"compress/gzip"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ecl-go/ecl/internal/atomicfile"
)

// File is one public file and what its content must be.
type File struct {
	Domain string // data set, the subdirectory of the data directory
	Name   string // file name
	URL    string
	Size   int64  // largest size accepted, in bytes: a longer response is refused
	Hash   string // "sha256" or "md5"
	Sum    string // hex digest of the file, or of its gunzipped content when Gunzip
	Gunzip bool
}

// Domains are the data sets of Files, in order.
var Domains = []string{"mnist", "usps", "svhn", "fashion"}

// FashionBase is the location of the Fashion-MNIST files (Xiao et al.
// 2017), Zalando's.
const FashionBase = "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/"

// DefaultMNISTBase is the default location of the MNIST files, PyTorch's
// mirror of the original site.
const DefaultMNISTBase = "https://ossci-datasets.s3.amazonaws.com/mnist/"

// Files is the table of the public files, the MNIST files under mnistBase
// (a URL ending in "/"). Sizes and checksums are those of the original
// files. The MNIST training images are checked by the MD5 of their
// gunzipped content, the published one, so that a copy re-compressed
// elsewhere is accepted as well as the original .gz (9,912,422 bytes).
func Files(mnistBase string) []File {
	sha := func(domain, name, url string, size int64, sum string) File {
		return File{Domain: domain, Name: name, URL: url + name, Size: size, Hash: "sha256", Sum: sum}
	}
	// Fashion-MNIST is checked by the SHA-256 of each file's gunzipped
	// content, so that Zalando's files and Debian's re-compressed ones
	// (package dataset-fashion-mnist) both verify.
	fashion := func(name string, size int64, sum string) File {
		return File{Domain: "fashion", Name: name, URL: FashionBase + name, Size: size, Hash: "sha256", Sum: sum, Gunzip: true}
	}
	const usps = "https://hastie.su.domains/ElemStatLearn/datasets/"
	const svhn = "http://ufldl.stanford.edu/housenumbers/"
	return []File{
		{Domain: "mnist", Name: "train-images-idx3-ubyte.gz", URL: mnistBase + "train-images-idx3-ubyte.gz",
			Size: 9912422, Hash: "md5", Sum: "6bbc9ace898e44ae57da46a324031adb", Gunzip: true},
		sha("mnist", "train-labels-idx1-ubyte.gz", mnistBase, 28881, "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c"),
		sha("mnist", "t10k-images-idx3-ubyte.gz", mnistBase, 1648877, "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6"),
		sha("mnist", "t10k-labels-idx1-ubyte.gz", mnistBase, 4542, "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6"),
		sha("usps", "zip.train.gz", usps, 1829071, "66ebf231ab51f2cf6ac1a892d0f98ccffee1079d7a5db638c1f11f366046ca16"),
		sha("usps", "zip.test.gz", usps, 439208, "8dacc3c6e136af6c3488de9e5113a7daf140c8c2f1f0b61c54ee02f03f1a962f"),
		{Domain: "svhn", Name: "train_32x32.mat", URL: svhn + "train_32x32.mat", Size: 182040794, Hash: "md5", Sum: "e26dedcc434d2e4c54c9b2d4a06d8373"},
		{Domain: "svhn", Name: "test_32x32.mat", URL: svhn + "test_32x32.mat", Size: 64275384, Hash: "md5", Sum: "eb5a983be6a315427106f1b164d9cef3"},
		fashion("train-images-idx3-ubyte.gz", 26421880, "c59f468a2f672dc815687fe0f83887768d799fd8a3f3276145d20f83aa44d888"),
		fashion("train-labels-idx1-ubyte.gz", 29515, "bad3541b69d912435c50bb6ba87bec294ff4f6a2e1246121d8633921760443d9"),
		fashion("t10k-images-idx3-ubyte.gz", 4422102, "5b4141f0afbad91edebe8549f8fcffe087ea10ca49f1dbef5c9a5cd8815ce37b"),
		fashion("t10k-labels-idx1-ubyte.gz", 5148, "0402a96d92fd2663957122ceb108a494c5af83dab82d92729df917d7dec38c34"),
	}
}

// EnvDir is the environment variable that names the data directory.
const EnvDir = "ECL_DATA"

// DefaultDir is the data directory when neither a flag nor $ECL_DATA names
// one: data, relative to the working directory.
const DefaultDir = "data"

// Dir resolves the data directory: flagValue when not empty, else
// $ECL_DATA when set and not empty, else DefaultDir.
func Dir(flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	if d := os.Getenv(EnvDir); d != "" {
		return d
	}
	return DefaultDir
}

// Options are the settings of Fetch; the zero value is the default.
type Options struct {
	Client   *http.Client // nil: http.DefaultClient
	Files    []File       // the table; nil: Files(DefaultMNISTBase)
	Force    bool         // replace a present file whose checksum is wrong instead of failing
	Progress io.Writer    // a line per file; nil: none
	// From, when set, is a local directory holding the files by name
	// (such as /usr/share/datasets/fashion-mnist): they are copied from
	// there, and verified, instead of downloaded.
	From string
}

// Fetch downloads the files of the given domains (all when domains is
// empty) into dir/DOMAIN/, skipping those present with the right checksum.
// It tries every file and returns the errors of those that failed, each
// naming the file, and the URL or the checksums.
func Fetch(ctx context.Context, dir string, domains []string, o Options) error {
	if o.Client == nil {
		o.Client = http.DefaultClient
	}
	if o.Files == nil {
		o.Files = Files(DefaultMNISTBase)
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	known := map[string]bool{}
	for _, f := range o.Files {
		known[f.Domain] = true
	}
	for _, d := range domains {
		if !known[d] {
			return fmt.Errorf("fetch: unknown data set %q (have %s)", d, strings.Join(slices.Sorted(maps.Keys(known)), ", "))
		}
	}
	var errs []error
	for _, f := range o.Files {
		if len(domains) > 0 && !slices.Contains(domains, f.Domain) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return errors.Join(append(errs, err)...)
		}
		if err := fetchFile(ctx, dir, f, o); err != nil {
			fmt.Fprintf(o.Progress, "%s/%s: failed\n", f.Domain, f.Name)
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// fetchFile makes dir/f.Domain/f.Name hold f, downloading it unless it is
// already there.
func fetchFile(ctx context.Context, dir string, f File, o Options) error {
	path := filepath.Join(dir, f.Domain, f.Name)
	switch got, err := sumFile(path, f); {
	case errors.Is(err, os.ErrNotExist):
	case err == nil && got == f.Sum:
		fmt.Fprintf(o.Progress, "%s/%s: present, %s verified\n", f.Domain, f.Name, f.Hash)
		return nil
	case o.Force:
		fmt.Fprintf(o.Progress, "%s/%s: present but wrong, replacing it\n", f.Domain, f.Name)
	case err != nil:
		return fmt.Errorf("%s is present but does not verify (%v): remove it or force a new download", path, err)
	default:
		return fmt.Errorf("%s is present but its %s is %s, want %s: remove it or force a new download", path, f.Hash, got, f.Sum)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	start := time.Now()
	src, origin, err := open(ctx, f, o)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer src.Close()
	var n int64
	err = atomicfile.Write(path, func(w io.Writer) error {
		body := &io.LimitedReader{R: src, N: f.Size + 1}
		tee := io.TeeReader(body, w)
		got, sumErr := sum(tee, f)
		_, err := io.Copy(io.Discard, tee)
		n = f.Size + 1 - body.N
		switch {
		case err != nil:
			return fmt.Errorf("%s: after %d bytes: %w", origin, n, err)
		case n > f.Size:
			return fmt.Errorf("%s: response larger than the expected %d bytes", origin, f.Size)
		case sumErr != nil:
			return fmt.Errorf("%s: %d bytes: %w", origin, n, sumErr)
		case got != f.Sum:
			return fmt.Errorf("%s: %d bytes with %s %s, want %s", origin, n, f.Hash, got, f.Sum)
		}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(o.Progress, "%s/%s: %d bytes in %s, %s verified\n", f.Domain, f.Name, n, time.Since(start).Round(time.Millisecond), f.Hash)
	return nil
}

// open opens f's source, o.From's copy or its URL, and says which
// ("GET <url>" or the local path).
func open(ctx context.Context, f File, o Options) (io.ReadCloser, string, error) {
	if o.From != "" {
		local := filepath.Join(o.From, f.Name)
		fmt.Fprintf(o.Progress, "%s/%s: copying %s\n", f.Domain, f.Name, local)
		r, err := os.Open(local)
		return r, local, err
	}
	fmt.Fprintf(o.Progress, "%s/%s: downloading %s (at most %.1f MB)\n", f.Domain, f.Name, f.URL, float64(f.Size)/1e6)
	origin := "GET " + f.URL
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.URL, nil)
	if err != nil {
		return nil, origin, err
	}
	resp, err := o.Client.Do(req)
	if err != nil {
		return nil, origin, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, origin, fmt.Errorf("%s: %s", origin, resp.Status)
	}
	if resp.ContentLength > f.Size {
		resp.Body.Close()
		return nil, origin, fmt.Errorf("%s: response of %d bytes, more than the expected %d", origin, resp.ContentLength, f.Size)
	}
	return resp.Body, origin, nil
}

// sumFile is the checksum of the file at path as f defines it.
func sumFile(path string, f File) (string, error) {
	r, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer r.Close()
	return sum(r, f)
}

// sum reads r and returns the hex digest f's checksum is compared with.
func sum(r io.Reader, f File) (string, error) {
	var h hash.Hash
	switch f.Hash {
	case "sha256":
		h = sha256.New()
	case "md5":
		h = md5.New()
	default:
		return "", fmt.Errorf("fetch: %s: unknown hash %q", f.Name, f.Hash)
	}
	if f.Gunzip {
		z, err := gzip.NewReader(r)
		if err != nil {
			return "", err
		}
		r = z
	}
	if _, err := io.Copy(h, r); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
