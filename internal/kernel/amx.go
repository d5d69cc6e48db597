package kernel

import "fmt"

// bfloat16 products on AMX tiles (Sapphire Rapids and later): C in blocks
// of 32 × 32 floats, four tile accumulators fed per step by two A tiles
// (16 rows × 16 words) and two B tiles (16 words of k × 16 columns). B is
// PackedBF16's panel as it lies (rows of 32 words; a B tile is half of 16
// of them), its k padded to whole tiles; A is packed row by row
// (packAAMX). amxTileGo, the kernel's specification, is microBF16Go's sum
// over a 32 × 32 block: per element, the odd then the even product of
// each word pair in order of k, each add rounded to nearest even with
// denormals flushed, as VDPBF16PS does. TDPBF16PS rounds and flushes
// alike but need not add in that order (Intel's pseudo-code writes the
// even product first, or keeps even and odd sums apart until a final
// add), so TestAMXTile holds the tiles to it within a tolerance.

const (
	amxBlock = 32 // rows and columns of C per kernel call
	amxWords = 16 // words of k per tile step (64 bytes: a tile row)
)

// amxTileGo sets the 32 × 32 block of c (row stride ldc) to the sums over
// kb·16 words of A's 32 rows (row stride lda words) times a B panel (32
// words a row).
func amxTileGo(kb int, a []uint32, lda int, b []uint32, c []float32, ldc int) {
	kw := kb * amxWords
	if kb <= 0 || len(a) < (amxBlock-1)*lda+kw || len(b) < kw*bf16Cols || len(c) < (amxBlock-1)*ldc+amxBlock {
		panic(fmt.Sprintf("kernel: AMX tile on %d, %d and %d values for %d steps", len(a), len(b), len(c), kb))
	}
	for r := range amxBlock {
		for j := range amxBlock {
			var acc float32
			for i := range kw {
				wa, wb := a[r*lda+i], b[i*bf16Cols+j]
				acc = dpbf16(acc, wa, wb)
			}
			c[r*ldc+j] = acc
		}
	}
}

// HasAMX reports whether bfloat16 products run on AMX tiles.
func HasAMX() bool { return cur.amx != nil }

// packAAMX rounds op(A) (m × k; stored k × m when transA) to bfloat16 row
// by row, kpad words a row (zero past ⌈k/2⌉), rows padded with zeros to a
// multiple of 32.
func packAAMX(transA bool, m, k, kpad int, a []float32, lda int) []uint32 {
	kp := (k + 1) / 2
	mp := (m + amxBlock - 1) / amxBlock * amxBlock
	ap := getWords(mp * kpad)
	if transA {
		col := getWords(m) // word i of every row
		for i := range kp {
			var odd []float32
			if 2*i+1 < k {
				odd = a[(2*i+1)*lda : (2*i+1)*lda+m]
			}
			roundRows(col, a[2*i*lda:2*i*lda+m], odd)
			for r, w := range col {
				ap[r*kpad+i] = w
			}
		}
		putWords(col)
		for r := range m {
			clear(ap[r*kpad+kp : (r+1)*kpad])
		}
	} else {
		for r := range m {
			roundPairs(ap[r*kpad:r*kpad+kp], a[r*lda:r*lda+k])
			clear(ap[r*kpad+kp : (r+1)*kpad])
		}
	}
	clear(ap[m*kpad:])
	return ap
}

// mulAMX sets C (m × p.n) to the product of the rows ap (packAAMX) and p
// plus beta·C, with the AMX tile kernel.
func mulAMX(w, m int, ap []uint32, p *PackedBF16, beta float32, c []float32, ldc int) {
	defer clearUpper()
	n, kpad := p.n, p.kpad
	mb := (m + amxBlock - 1) / amxBlock
	pn := (n + bf16Cols - 1) / bf16Cols
	tileOf := cur.amx
	parallelFor(pn, 4, w, bodyFunc(func(lo, hi int) {
		var tile *[amxBlock * amxBlock]float32 // edge tiles, from tiles
		defer func() {
			if tile != nil {
				tiles.Put(tile)
			}
		}()
		for q := lo; q < hi; q++ {
			bp := p.d[q*kpad*bf16Cols : (q+1)*kpad*bf16Cols]
			j0, cols := q*bf16Cols, min(bf16Cols, n-q*bf16Cols)
			for i := range mb {
				a := ap[i*amxBlock*kpad : (i+1)*amxBlock*kpad]
				i0, rows := i*amxBlock, min(amxBlock, m-i*amxBlock)
				if rows == amxBlock && cols == amxBlock && beta == 0 {
					tileOf(kpad/amxWords, a, kpad, bp, c[i0*ldc+j0:], ldc)
					continue
				}
				if tile == nil {
					tile = tiles.Get().(*[amxBlock * amxBlock]float32)
				}
				tileOf(kpad/amxWords, a, kpad, bp, tile[:], amxBlock)
				storeTile(c[i0*ldc+j0:], ldc, tile[:], amxBlock, rows, cols, beta)
			}
		}
	}))
}
