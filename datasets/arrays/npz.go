package arrays

import (
	"archive/zip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// npzPath splits "file.npz" or "file.npz:name" into the archive and the
// array name ("" when none is given).
func npzPath(path string) (file, name string, ok bool) {
	if strings.EqualFold(filepath.Ext(path), ".npz") {
		return path, "", true
	}
	i := strings.LastIndex(strings.ToLower(path), ".npz:")
	if i < 0 {
		return "", "", false
	}
	return path[:i+4], path[i+5:], true
}

// NPZNames lists the arrays of a NumPy .npz archive (member names without
// ".npy"), in archive order.
func NPZNames(path string) ([]string, error) {
	z, err := zip.OpenReader(path)
	if err != nil {
		return nil, fmt.Errorf("%s: not a .npz (zip) archive: %v", path, err)
	}
	defer z.Close()
	var names []string
	for _, f := range z.File {
		if n, ok := strings.CutSuffix(f.Name, ".npy"); ok {
			names = append(names, n)
		}
	}
	return names, nil
}

// ReadNPZ reads the array name of a NumPy .npz archive (a zip of .npy
// members, stored or deflated, as numpy.savez and savez_compressed write
// it); name "" picks the only array. Values and shape are as ReadNPY's.
func ReadNPZ(path, name string) (data []float64, shape []int, err error) {
	z, err := zip.OpenReader(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: not a .npz (zip) archive: %v", path, err)
	}
	defer z.Close()
	var names []string
	var pick *zip.File
	for _, f := range z.File {
		if n, ok := strings.CutSuffix(f.Name, ".npy"); ok {
			names = append(names, n)
			if n == name || (name == "" && pick == nil) {
				pick = f
			}
		}
	}
	switch {
	case len(names) == 0:
		return nil, nil, fmt.Errorf("%s: no .npy arrays in the archive", path)
	case name == "" && len(names) > 1:
		return nil, nil, fmt.Errorf("%s: %d arrays (%s): pick one as %s:NAME", path, len(names), strings.Join(names, ", "), path)
	case pick == nil:
		return nil, nil, fmt.Errorf("%s: no array %q (it has %s)", path, name, strings.Join(names, ", "))
	}
	if pick.UncompressedSize64 > uint64(MaxValues)*8+1<<16 {
		return nil, nil, fmt.Errorf("%s:%s: %d bytes, more than arrays.MaxValues allows", path, pick.Name, pick.UncompressedSize64)
	}
	r, err := pick.Open()
	if err != nil {
		return nil, nil, fmt.Errorf("%s:%s: %v", path, pick.Name, err)
	}
	defer r.Close()
	held := int64(0)
	if st, err := os.Stat(path); err == nil && pick.Method == zip.Store && pick.UncompressedSize64 <= uint64(st.Size()) {
		held = int64(pick.UncompressedSize64)
	}
	return decodeNPY(r, int64(pick.UncompressedSize64), held, path+":"+strings.TrimSuffix(pick.Name, ".npy"))
}

// loadNPZ is Load for an archive.
func loadNPZ(path, name string) (Matrix, error) {
	data, shape, err := ReadNPZ(path, name)
	if err != nil {
		return Matrix{}, err
	}
	m, err := matrixOf(path, data, shape)
	if err == nil && name == "" {
		names, _ := NPZNames(path)
		m.Notes = append(m.Notes, fmt.Sprintf("%s: read its only array %q", path, names[0]))
	}
	return m, err
}
