//go:build goexperiment.simd

package kernel

import "simd/archsimd"

// The bfloat16 rounding of the packs (bf16round.go), 16 lanes at a time,
// operation for operation toBF16. Callers clear the upper state before
// their scalar tails.

func bu16(v uint32) archsimd.Uint32x16 { return archsimd.BroadcastUint32x16(v) }

// roundBF16x16 rounds the float32 bits b to bfloat16 in the low halves of
// the lanes (the high halves zero): nearest even, a NaN quieted.
//
// The shifts take their count from a vector: ShiftAllRight(16) compiles
// to a legacy-SSE MOVQ of the count (Go 1.26.8). The constants are the
// callers', broadcast once outside their loops (as a struct they would be
// copied with legacy-SSE moves): 0x7fff, 1, 0x7fffffff, 0x7f800000, 0x40,
// 16.
func roundBF16x16(b, half, one, abs, inf, quiet, s16 archsimd.Uint32x16) archsimd.Uint32x16 {
	hi := b.ShiftRight(s16)
	r := b.Add(half).Add(hi.And(one)).ShiftRight(s16)
	nan := b.And(abs).Greater(inf)
	return hi.Or(quiet).Merge(r, nan)
}

// roundPairsAVX512 is roundPairs' vector part: the words of dst whose
// float pairs lie in whole vectors of src; it returns how many.
//
//go:noinline
func roundPairsAVX512(dst []uint32, src []float32) int {
	half, one, abs, inf, quiet, s16 := bu16(0x7fff), bu16(1), bu16(0x7fffffff), bu16(0x7f800000), bu16(0x40), bu16(16)
	n := min(len(dst), len(src)/2) &^ 7
	for i := 0; i < n; i += 8 {
		b := archsimd.LoadFloat32x16Slice(src[2*i:]).AsUint32x16()
		roundBF16x16(b, half, one, abs, inf, quiet, s16).TruncateToUint16().AsUint32x8().StoreSlice(dst[i:])
	}
	return n
}

// roundRowsAVX512 is roundRows' vector part: whole vectors of dst; it
// returns how many words.
//
//go:noinline
func roundRowsAVX512(dst []uint32, lo, hi []float32) int {
	half, one, abs, inf, quiet, s16 := bu16(0x7fff), bu16(1), bu16(0x7fffffff), bu16(0x7f800000), bu16(0x40), bu16(16)
	n := len(dst) &^ 15
	for c := 0; c < n; c += 16 {
		w := roundBF16x16(archsimd.LoadFloat32x16Slice(lo[c:]).AsUint32x16(), half, one, abs, inf, quiet, s16)
		if hi != nil {
			w = w.Or(roundBF16x16(archsimd.LoadFloat32x16Slice(hi[c:]).AsUint32x16(), half, one, abs, inf, quiet, s16).ShiftLeft(s16))
		}
		w.StoreSlice(dst[c:])
	}
	return n
}

// The permutations of roundPanelAVX512, one chunk (16 floats, 8 words, of
// each of 8 rows) at a time: words are named (i, r), word i of row r.
var (
	// panelPairs interleaves two rounded rows (bf16 of float j in the
	// 16-bit lane 2j of each) into words (i, r) at 2i + r, r = 0, 1.
	panelPairs [32]uint16
	// panelQuads joins two such pairs of rows into words (i, r) at 4i + r,
	// r = 0…3: i = 0…3 with the first, 4…7 with the second.
	panelQuads [2][16]uint32
	// panelEights joins two quads into words (i, r) at 8i + r, r = 0…7:
	// i = 0, 1 with the first, 2, 3 with the second (of the quads' i).
	panelEights [2][16]uint32
)

func init() {
	for i := range 8 {
		for r := range 2 {
			w := 2*i + r
			panelPairs[2*w] = uint16(32*r + 4*i)
			panelPairs[2*w+1] = uint16(32*r + 4*i + 2)
		}
	}
	for h := range 2 {
		for w := range 16 {
			i, r := w/4+4*h, w%4
			panelQuads[h][w] = uint32(16*(r/2) + 2*i + r%2)
			i, r = w/8+2*h, w%8
			panelEights[h][w] = uint32(16*(r/4) + 4*i + r%4)
		}
	}
}

// roundPanelAVX512 is roundPanel's vector part: the words of 8 rows (row
// r at a[r*lda:], k floats) whose float pairs lie in whole chunks of 16,
// rounded and stored as dst[i*stride+r]; it returns how many words a
// row. The scatter this replaces, a row's words one by one at a stride,
// took most of the packs' time: here three rounds of two-source permutes
// turn 8 rounded rows into the 8×8 block of words (i, r), stored as 8
// runs of 8 words.
//
//go:noinline
func roundPanelAVX512(dst []uint32, stride int, a []float32, lda, k int) int {
	half, one, abs, inf, quiet, s16 := bu16(0x7fff), bu16(1), bu16(0x7fffffff), bu16(0x7f800000), bu16(0x40), bu16(16)
	pairs := archsimd.LoadUint16x32Slice(panelPairs[:])
	qa, qb := archsimd.LoadUint32x16Slice(panelQuads[0][:]), archsimd.LoadUint32x16Slice(panelQuads[1][:])
	ea, eb := archsimd.LoadUint32x16Slice(panelEights[0][:]), archsimd.LoadUint32x16Slice(panelEights[1][:])
	n := k / 16 * 8
	if n == 0 {
		return 0
	}
	_, _ = a[7*lda+2*n-1], dst[(n-1)*stride+7]
	for c := 0; c < n; c += 8 {
		f := 2 * c
		p01 := roundAt(a[f:], half, one, abs, inf, quiet, s16).ConcatPermute(roundAt(a[lda+f:], half, one, abs, inf, quiet, s16), pairs).AsUint32x16()
		p23 := roundAt(a[2*lda+f:], half, one, abs, inf, quiet, s16).ConcatPermute(roundAt(a[3*lda+f:], half, one, abs, inf, quiet, s16), pairs).AsUint32x16()
		p45 := roundAt(a[4*lda+f:], half, one, abs, inf, quiet, s16).ConcatPermute(roundAt(a[5*lda+f:], half, one, abs, inf, quiet, s16), pairs).AsUint32x16()
		p67 := roundAt(a[6*lda+f:], half, one, abs, inf, quiet, s16).ConcatPermute(roundAt(a[7*lda+f:], half, one, abs, inf, quiet, s16), pairs).AsUint32x16()
		lo03, hi03 := p01.ConcatPermute(p23, qa), p01.ConcatPermute(p23, qb)
		lo47, hi47 := p45.ConcatPermute(p67, qa), p45.ConcatPermute(p67, qb)
		v := lo03.ConcatPermute(lo47, ea) // words c, c+1
		v.GetLo().StoreSlice(dst[c*stride:])
		v.GetHi().StoreSlice(dst[(c+1)*stride:])
		v = lo03.ConcatPermute(lo47, eb) // c+2, c+3
		v.GetLo().StoreSlice(dst[(c+2)*stride:])
		v.GetHi().StoreSlice(dst[(c+3)*stride:])
		v = hi03.ConcatPermute(hi47, ea) // c+4, c+5
		v.GetLo().StoreSlice(dst[(c+4)*stride:])
		v.GetHi().StoreSlice(dst[(c+5)*stride:])
		v = hi03.ConcatPermute(hi47, eb) // c+6, c+7
		v.GetLo().StoreSlice(dst[(c+6)*stride:])
		v.GetHi().StoreSlice(dst[(c+7)*stride:])
	}
	return n
}

// roundAt rounds the 16 floats at the start of s (roundBF16x16), seen as
// 32 16-bit lanes.
func roundAt(s []float32, half, one, abs, inf, quiet, s16 archsimd.Uint32x16) archsimd.Uint16x32 {
	return roundBF16x16(archsimd.LoadFloat32x16Slice(s).AsUint32x16(), half, one, abs, inf, quiet, s16).AsUint16x32()
}
