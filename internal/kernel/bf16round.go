package kernel

import "fmt"

// roundPairs sets dst[i] to pairBF16(src[2i], src[2i+1]) for every word
// of dst, src[2i+1] taken as 0 past the end of src (an odd k): a row of
// k values rounded and paired as the packs' words hold them.
func roundPairs(dst []uint32, src []float32) {
	if len(src) != 2*len(dst) && len(src) != 2*len(dst)-1 {
		panic(fmt.Sprintf("kernel: %d values for %d bfloat16 pairs", len(src), len(dst)))
	}
	i := 0
	if cur.roundPairs != nil {
		i = cur.roundPairs(dst, src)
		clearUpper()
	}
	for ; i < len(dst); i++ {
		var hi float32
		if 2*i+1 < len(src) {
			hi = src[2*i+1]
		}
		dst[i] = pairBF16(src[2*i], hi)
	}
}

// roundRows sets dst[c] to pairBF16(lo[c], hi[c]) for every word of dst:
// two rows of k rounded and paired; hi nil is a row of zeros.
func roundRows(dst []uint32, lo, hi []float32) {
	if len(lo) < len(dst) || hi != nil && len(hi) < len(dst) {
		panic(fmt.Sprintf("kernel: rows of %d and %d values for %d bfloat16 pairs", len(lo), len(hi), len(dst)))
	}
	c := 0
	if cur.roundRows != nil {
		c = cur.roundRows(dst, lo, hi)
		clearUpper()
	}
	for ; c < len(dst); c++ {
		var h float32
		if hi != nil {
			h = hi[c]
		}
		dst[c] = pairBF16(lo[c], h)
	}
}

// roundScatter sets dst[i*stride] to pairBF16(src[2i], src[2i+1]) for
// the len(row) words i: one row of k floats rounded into the scratch row,
// then spread at the stride of a panel (a row of an A panel, a column of
// a B panel).
func roundScatter(dst []uint32, stride int, row []uint32, src []float32) {
	roundPairs(row, src)
	for i, w := range row {
		dst[i*stride] = w
	}
}

// roundPanel sets dst[i*stride+r] to pairBF16(a[r*lda+2i], a[r*lda+2i+1])
// for the 8 rows r of k floats at a (row r at a[r*lda:]) and their
// ⌈k/2⌉ words i, a[r*lda+k] taken as 0 for an odd k: 8 rows of the
// products' operands rounded, paired and interleaved as their panels hold
// them (A panels with stride 8, B panels with stride 32).
func roundPanel(dst []uint32, stride int, a []float32, lda, k int) {
	kp := (k + 1) / 2
	if kp == 0 {
		return
	}
	_, _ = a[(bf16Rows-1)*lda+k-1], dst[(kp-1)*stride+bf16Rows-1]
	if cur.roundPanel == nil {
		// A row at a time (roundPairs' vectors where the level has
		// them), its words scattered at the stride.
		row := getWords(kp)
		for r := range bf16Rows {
			roundScatter(dst[r:], stride, row, a[r*lda:r*lda+k])
		}
		putWords(row)
		return
	}
	i := cur.roundPanel(dst, stride, a, lda, k)
	clearUpper()
	for ; i < kp; i++ {
		for r := range bf16Rows {
			var hi float32
			if 2*i+1 < k {
				hi = a[r*lda+2*i+1]
			}
			dst[i*stride+r] = pairBF16(a[r*lda+2*i], hi)
		}
	}
}
