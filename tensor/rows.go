package tensor

// copyRows copies rows rows of cols elements from src (row stride lds) to
// dst (row stride ldd); addRows adds them into dst instead. Rows must not
// overlap between dst and src.
func copyRows[T Float](dst, src []T, rows, cols, ldd, lds int) {
	if rows <= 0 || cols <= 0 {
		return
	}
	checkRows(dst, rows, cols, ldd)
	checkRows(src, rows, cols, lds)
	if rowsAsm(dst, src, rows, cols, ldd, lds, false) {
		return
	}
	for r := range rows {
		copy(dst[r*ldd:r*ldd+cols], src[r*lds:r*lds+cols])
	}
}

func addRows[T Float](dst, src []T, rows, cols, ldd, lds int) {
	if rows <= 0 || cols <= 0 {
		return
	}
	checkRows(dst, rows, cols, ldd)
	checkRows(src, rows, cols, lds)
	if rowsAsm(dst, src, rows, cols, ldd, lds, true) {
		return
	}
	for r := range rows {
		d := dst[r*ldd : r*ldd+cols]
		for j, v := range src[r*lds : r*lds+cols] {
			d[j] += v
		}
	}
}

// checkRows panics unless s holds rows rows of cols elements at stride ld
// (≥ 0), the bounds that the assembly relies on.
func checkRows[T Float](s []T, rows, cols, ld int) {
	if ld < 0 || (rows-1)*ld+cols > len(s) {
		panic("tensor: row move out of range")
	}
}
