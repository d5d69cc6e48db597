package kernel

import (
	"fmt"
	"math"
	"sync"
)

// bfloat16 products. A product C = A·B of float32 matrices whose operands
// are rounded to bfloat16 (8 bits of significand, round to nearest even)
// and whose sums stay float32: the entity side B is rounded and packed
// once (PackBF16), the query side A per call. On CPUs with AVX512-BF16
// (VDPBF16PS: Zen 4, Sapphire Rapids and later) an 8×32 micro-kernel in
// assembly does two multiply-adds per float32 lane and instruction, twice
// an FMA's work; with AVX2 alone another widens the halves and does one
// FMA per product (bf16avx2_amd64.s); elsewhere the pure-Go loop below,
// which is their specification, gives the same bits.
//
// VDPBF16PS adds, per lane, the product of the high (odd) halves of the
// two 32-bit words, then that of the low (even) halves, each add rounded
// to nearest even in float32, denormal inputs and results taken as zero.
// A product of two bfloat16 values is exact in float32, so the only
// roundings are the adds'.

// bf16Rows and bf16Cols are the micro-kernel's tile.
const (
	bf16Rows = 8
	bf16Cols = 32
)

// toBF16 rounds x to bfloat16 (nearest even); NaN stays a (quiet) NaN.
func toBF16(x float32) uint16 {
	b := math.Float32bits(x)
	if b&0x7fffffff > 0x7f800000 {
		return uint16(b>>16) | 0x40
	}
	return uint16((b + 0x7fff + (b>>16)&1) >> 16)
}

// fromBF16 widens a bfloat16 value, a denormal to zero (as VDPBF16PS
// reads it).
func fromBF16(h uint16) float32 {
	if h&0x7f80 == 0 {
		h &= 0x8000
	}
	return math.Float32frombits(uint32(h) << 16)
}

// ftz flushes a denormal float32 to zero of its sign.
func ftz(x float32) float32 {
	if b := math.Float32bits(x); b&0x7f800000 == 0 {
		return math.Float32frombits(b & 0x80000000)
	}
	return x
}

// pairBF16 packs two consecutive k elements into one word, the first in
// the low half.
func pairBF16(lo, hi float32) uint32 { return uint32(toBF16(lo)) | uint32(toBF16(hi))<<16 }

// PackedBF16 is op(B), k × n, rounded to bfloat16 and laid out for
// GemmPackedBF16: panels of 32 columns, each ⌈k/2⌉ rows of 32 words that
// hold rows 2p and 2p+1 of a column (zero-padded), then zero rows up to
// kpad (a multiple of 16 when packed for AMX tiles). Immutable; safe for
// concurrent use.
type PackedBF16 struct {
	k, n, kp, kpad int
	d              []uint32
}

// K and N are op(B)'s dimensions.
func (p *PackedBF16) K() int { return p.k }
func (p *PackedBF16) N() int { return p.n }

// PackBF16 rounds op(B) (k × n; stored n × k when transB) to bfloat16 and
// packs it for GemmPackedBF16.
func PackBF16(transB bool, k, n int, b []float32, ldb int) *PackedBF16 {
	return PackBF16Into(nil, transB, k, n, b, ldb)
}

// PackBF16Into is PackBF16 reusing the storage of old (which may be nil
// and must no longer be in use): for weights packed again every step.
func PackBF16Into(old *PackedBF16, transB bool, k, n int, b []float32, ldb int) *PackedBF16 {
	return packBF16Into(workers(), old, transB, k, n, b, ldb)
}

func packBF16Into(w int, old *PackedBF16, transB bool, k, n int, b []float32, ldb int) *PackedBF16 {
	checkGemm(false, transB, 0, n, k, 0, max(k, 1), len(b), ldb, 0, max(n, 1))
	kp := (k + 1) / 2
	kpad := kp
	if cur.amx != nil {
		kpad = (kp + amxWords - 1) / amxWords * amxWords
	}
	pn := (n + bf16Cols - 1) / bf16Cols
	var d []uint32
	if old != nil && cap(old.d) >= pn*kpad*bf16Cols {
		d = old.d[:pn*kpad*bf16Cols]
	} else {
		d = make([]uint32, pn*kpad*bf16Cols)
	}
	p := &PackedBF16{k: k, n: n, kp: kp, kpad: kpad, d: d}
	parallelFor(pn, 1, w, bodyFunc(func(lo, hi int) {
		var col []uint32 // a column of op(B), rounded and paired
		if transB {
			col = make([]uint32, kp)
		}
		for q := lo; q < hi; q++ {
			panel := p.d[q*kpad*bf16Cols : (q+1)*kpad*bf16Cols]
			clear(panel[kp*bf16Cols:])
			j0, cols := q*bf16Cols, min(bf16Cols, n-q*bf16Cols)
			if transB {
				whole := cols / bf16Rows * bf16Rows // 8 columns at once
				for c := 0; c < whole; c += bf16Rows {
					roundPanel(panel[c:], bf16Cols, b[(j0+c)*ldb:], ldb, k)
				}
				for c := whole; c < cols; c++ {
					roundScatter(panel[c:], bf16Cols, col, b[(j0+c)*ldb:(j0+c)*ldb+k])
				}
			} else {
				for i := range kp {
					var odd []float32 // row 2i+1, none past an odd k
					if 2*i+1 < k {
						odd = b[(2*i+1)*ldb+j0 : (2*i+1)*ldb+j0+cols]
					}
					roundRows(panel[i*bf16Cols:i*bf16Cols+cols], b[2*i*ldb+j0:2*i*ldb+j0+cols], odd)
				}
			}
			if cols < bf16Cols {
				for i := range kp {
					clear(panel[i*bf16Cols+cols : (i+1)*bf16Cols])
				}
			}
		}
	}))
	return p
}

// bodyFunc adapts a function to parallelFor (for calls that may allocate).
type bodyFunc func(lo, hi int)

func (f bodyFunc) do(lo, hi int) { f(lo, hi) }

// GemmPackedBF16 sets C (m × n, row stride ldc) to A·op(B) for A (m × k,
// row stride lda) rounded to bfloat16 and B packed by PackBF16, with
// float32 sums: the entity-side products of scoring, at twice the float32
// kernels' rate where the CPU has AVX512-BF16 (HasBF16).
func GemmPackedBF16(m int, a []float32, lda int, p *PackedBF16, c []float32, ldc int) {
	gemmPackedBF16(workers(), m, a, lda, p, c, ldc)
}

// GemmPackedBF16Serial is GemmPackedBF16 on the calling goroutine alone,
// with the same bits.
func GemmPackedBF16Serial(m int, a []float32, lda int, p *PackedBF16, c []float32, ldc int) {
	gemmPackedBF16(1, m, a, lda, p, c, ldc)
}

func gemmPackedBF16(w, m int, a []float32, lda int, p *PackedBF16, c []float32, ldc int) {
	checkGemm(false, false, m, p.n, p.k, len(a), lda, p.k*p.n, p.n, len(c), ldc)
	if m == 0 || p.n == 0 {
		return
	}
	mulBF16(w, false, m, a, lda, p, 0, c, ldc)
}

// GemmBF16 sets C (m × n, row stride ldc) to op(A)·op(B) + beta·C with
// both operands rounded to bfloat16 and packed for this call, float32
// sums: products whose operands both change from call to call, such as
// training's weight gradients.
func GemmBF16(transA, transB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	gemmBF16(workers(), transA, transB, m, n, k, a, lda, b, ldb, beta, c, ldc)
}

// GemmBF16Serial is GemmBF16 on the calling goroutine alone, with the same
// bits.
func GemmBF16Serial(transA, transB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	gemmBF16(1, transA, transB, m, n, k, a, lda, b, ldb, beta, c, ldc)
}

func gemmBF16(w int, transA, transB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkGemm(transA, transB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc)
	if m == 0 || n == 0 {
		return
	}
	p := packs.Get().(*PackedBF16)
	*p = *packBF16Into(w, p, transB, k, n, b, ldb)
	mulBF16(w, transA, m, a, lda, p, beta, c, ldc)
	packs.Put(p)
}

// mulBF16 sets C to op(A)·p + beta·C: on AMX tiles when the CPU has them
// and p was packed for them, else with the 8×32 micro-kernel.
func mulBF16(w int, transA bool, m int, a []float32, lda int, p *PackedBF16, beta float32, c []float32, ldc int) {
	if cur.amx != nil && p.kpad%amxWords == 0 && p.kpad > 0 {
		ap := packAAMX(transA, m, p.k, p.kpad, a, lda)
		mulAMX(w, m, ap, p, beta, c, ldc)
		putWords(ap)
		return
	}
	ap := packABF16(transA, m, p.k, a, lda)
	mulPackedBF16(w, m, ap, p, beta, c, ldc)
	putWords(ap)
}

// packs keeps GemmBF16's B packs from call to call.
var packs = sync.Pool{New: func() any { return new(PackedBF16) }}

// words keeps A packs from call to call: a training step's products would
// otherwise allocate (and the collector clear) megabytes each. The slices
// travel in holders that go back to holders when empty, so that neither
// side allocates a header per call.
var words, holders sync.Pool

func getWords(n int) []uint32 {
	if h, ok := words.Get().(*[]uint32); ok {
		w := *h
		*h = nil
		holders.Put(h)
		if cap(w) >= n {
			return w[:n]
		}
	}
	return make([]uint32, n)
}

func putWords(w []uint32) {
	h, ok := holders.Get().(*[]uint32)
	if !ok {
		h = new([]uint32)
	}
	*h = w
	words.Put(h)
}

// packABF16 rounds op(A) (m × k; stored k × m when transA) to bfloat16 in
// the micro-kernel's A panels: 8 rows each, ⌈k/2⌉ words per row,
// row-interleaved, rows past m zero.
func packABF16(transA bool, m, k int, a []float32, lda int) []uint32 {
	kp := (k + 1) / 2
	pm := (m + bf16Rows - 1) / bf16Rows
	ap := getWords(pm * kp * bf16Rows)
	if transA {
		// Rows 2i and 2i+1 of the stored A pair up lane by lane: word i
		// of every op(A) row at once, then to the panels 8 at a time.
		row := getWords(pm * bf16Rows)
		clear(row[m:])
		for i := range kp {
			var odd []float32
			if 2*i+1 < k {
				odd = a[(2*i+1)*lda : (2*i+1)*lda+m]
			}
			roundRows(row[:m], a[2*i*lda:2*i*lda+m], odd)
			for q := range pm { // array moves: no memmove call per 8 words
				*(*[bf16Rows]uint32)(ap[(q*kp+i)*bf16Rows:]) = *(*[bf16Rows]uint32)(row[q*bf16Rows:])
			}
		}
		putWords(row)
		return ap
	}
	whole := m / bf16Rows // panels of 8 rows, rounded and interleaved at once
	for q := range whole {
		roundPanel(ap[q*kp*bf16Rows:(q+1)*kp*bf16Rows], bf16Rows, a[q*bf16Rows*lda:], lda, k)
	}
	row := getWords(kp)
	for r := whole * bf16Rows; r < m; r++ {
		roundScatter(ap[r/bf16Rows*kp*bf16Rows+r%bf16Rows:], bf16Rows, row, a[r*lda:r*lda+k])
	}
	for r := m; r < pm*bf16Rows; r++ {
		panel := ap[r/bf16Rows*kp*bf16Rows+r%bf16Rows:]
		for i := range kp {
			panel[i*bf16Rows] = 0
		}
	}
	putWords(row)
	return ap
}

// mulPackedBF16 sets C to the product of the A panels ap (m rows) and p,
// plus beta·C.
func mulPackedBF16(w, m int, ap []uint32, p *PackedBF16, beta float32, c []float32, ldc int) {
	defer clearUpper()
	micro := cur.bf16
	if micro == nil {
		micro = microBF16Go
	}
	// Each worker sweeps every A panel over a range of B panels: a B panel
	// (kp × 32 words) stays in L1/L2 while the A panels stream.
	b := bf16Bodies.get()
	*b = bf16Body{micro: micro, m: m, ap: ap, p: p, beta: beta, c: c, ldc: ldc}
	run := parallelFor
	if m <= gemmSmallM { // answering queries
		run = parallelForNow
	}
	run((p.n+bf16Cols-1)/bf16Cols, 4, w, b)
	bf16Bodies.put(b)
}

// bf16Body runs the micro-kernel on B panels [lo, hi) of a product.
type bf16Body struct {
	micro  func(kp int, a, b []uint32, c []float32, ldc int)
	m, ldc int
	ap     []uint32
	p      *PackedBF16
	beta   float32
	c      []float32
}

var bf16Bodies pool[bf16Body]

func (b *bf16Body) do(lo, hi int) {
	p, m, c, ldc := b.p, b.m, b.c, b.ldc
	n, kp, kpad := p.n, p.kp, p.kpad
	var tile *[amxBlock * amxBlock]float32 // edge tiles, from tiles
	for q := lo; q < hi; q++ {
		bp := p.d[q*kpad*bf16Cols : (q*kpad+kp)*bf16Cols]
		j0, cols := q*bf16Cols, min(bf16Cols, n-q*bf16Cols)
		for i := range (m + bf16Rows - 1) / bf16Rows {
			a := b.ap[i*kp*bf16Rows : (i+1)*kp*bf16Rows]
			i0, rows := i*bf16Rows, min(bf16Rows, m-i*bf16Rows)
			if rows == bf16Rows && cols == bf16Cols && b.beta == 0 {
				b.micro(kp, a, bp, c[i0*ldc+j0:], ldc)
				continue
			}
			if tile == nil {
				tile = tiles.Get().(*[amxBlock * amxBlock]float32)
			}
			b.micro(kp, a, bp, tile[:], bf16Cols)
			storeTile(c[i0*ldc+j0:], ldc, tile[:], bf16Cols, rows, cols, b.beta)
		}
	}
	if tile != nil {
		tiles.Put(tile)
	}
}

// tiles holds the products' edge tiles (rows or columns past C's): a tile
// local to a worker's body escapes, the kernels being function values, and
// one allocated per chunk made a few-row product, all edge, allocate and
// clear ~100 KB (serving's entity scores).
var tiles = sync.Pool{New: func() any { return new([amxBlock * amxBlock]float32) }}

// storeTile sets the rows × cols block of c (row stride ldc) to that of
// tile (row stride tw) plus beta times itself.
func storeTile(c []float32, ldc int, tile []float32, tw, rows, cols int, beta float32) {
	for r := range rows {
		dst, t := c[r*ldc:r*ldc+cols], tile[r*tw:r*tw+cols]
		switch beta {
		case 0:
			copy(dst, t)
		case 1:
			cur.addTo(dst, t)
		default:
			for j, v := range t {
				dst[j] = v + beta*dst[j]
			}
		}
	}
}

// microBF16Go is the micro-kernel's specification: the 8×32 tile of c
// (row stride ldc) set to the sums over kp word pairs of a panel (kp × 8)
// and b panel (kp × 32), VDPBF16PS's order and roundings.
func microBF16Go(kp int, a, b []uint32, c []float32, ldc int) {
	if len(a) < kp*bf16Rows || len(b) < kp*bf16Cols || len(c) < (bf16Rows-1)*ldc+bf16Cols {
		panic(fmt.Sprintf("kernel: bf16 micro-kernel on %d, %d and %d values for k/2 = %d", len(a), len(b), len(c), kp))
	}
	for r := range bf16Rows {
		for j := range bf16Cols {
			var acc float32
			for i := range kp {
				wa, wb := a[i*bf16Rows+r], b[i*bf16Cols+j]
				acc = dpbf16(acc, wa, wb)
			}
			c[r*ldc+j] = acc
		}
	}
}

// dpbf16 adds to acc the products of the word pairs wa and wb as
// VDPBF16PS does: the high (odd) halves', then the low (even) halves', each
// add rounded to float32 with denormals flushed.
func dpbf16(acc float32, wa, wb uint32) float32 {
	acc = ftz(acc + fromBF16(uint16(wa>>16))*fromBF16(uint16(wb>>16)))
	return ftz(acc + fromBF16(uint16(wa))*fromBF16(uint16(wb)))
}

// HasBF16 reports whether bfloat16 products run on vector instructions:
// the CPU's AVX512-BF16, or AVX2 FMAs that give the same bits (else
// GemmPackedBF16 emulates them in Go, ~70× slower, to the bit).
func HasBF16() bool { return cur.bf16 != nil }

// NativeBF16 reports whether the CPU multiplies bfloat16 operands itself
// (AMX tiles or AVX512-BF16), where bf16 products run at up to twice the
// float32 rate; emulated, with AVX2 FMAs or in Go, they are slower than
// float32 products.
func NativeBF16() bool { return cur.amx != nil || cur.bf16Name == bf16AVX512 }
