package fetch_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/ecl-go/ecl/datasets/fetch"
)

// Fetch a file from a local server, here in place of the public sites:
// the file is checked against its checksum, and a second call finds it
// present and downloads nothing.
func ExampleFetch() {
	content := []byte("5.0000 -1.0000 0.5000\n")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write(content) }))
	defer srv.Close()
	sum := sha256.Sum256(content)
	files := []fetch.File{{Domain: "toy", Name: "zip.test", URL: srv.URL + "/zip.test",
		Size: 1 << 10, Hash: "sha256", Sum: hex.EncodeToString(sum[:])}}

	dir, err := os.MkdirTemp("", "fetch")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	if err := fetch.Fetch(ctx, dir, nil, fetch.Options{Files: files}); err != nil {
		log.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "toy", "zip.test"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%q\n", b)

	var progress strings.Builder
	if err := fetch.Fetch(ctx, dir, nil, fetch.Options{Files: files, Progress: &progress}); err != nil {
		log.Fatal(err)
	}
	fmt.Print(progress.String())

	fmt.Println(fetch.Fetch(ctx, dir, []string{"svhn"}, fetch.Options{Files: files}))
	// Output:
	// "5.0000 -1.0000 0.5000\n"
	// toy/zip.test: present, sha256 verified
	// fetch: unknown data set "svhn" (have toy)
}
