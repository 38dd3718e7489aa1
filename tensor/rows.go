package tensor

// moveRows copies (add = false) or adds rows rows of cols elements from src
// (row stride lds) into dst (row stride ldd). Rows must not overlap between
// dst and src.
func moveRows[T Float](dst, src []T, rows, cols, ldd, lds int, add bool) {
	if rows <= 0 || cols <= 0 {
		return
	}
	checkRows(dst, rows, cols, ldd)
	checkRows(src, rows, cols, lds)
	if rowsAsm(dst, src, rows, cols, ldd, lds, add) {
		return
	}
	for r := range rows {
		d, s := dst[r*ldd:r*ldd+cols], src[r*lds:r*lds+cols]
		if !add {
			copy(d, s)
			continue
		}
		for j, v := range s {
			d[j] += v
		}
	}
}

// checkRows panics unless s holds rows rows of cols elements at stride ld
// (≥ 0), the bounds that the assembly relies on.
func checkRows[T Float](s []T, rows, cols, ld int) {
	if ld < 0 || (rows-1)*ld+cols > len(s) {
		panic(shapeError("checkRows", [][]int{{len(s)}}, "row move out of range: %d rows of %d at stride %d over %d values", rows, cols, ld, len(s)))
	}
}
