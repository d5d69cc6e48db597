package kernel

// Small-m GEMM: a few rows of op(A) against a large B, as when the model
// answers one query (or a handful) at a time. The blocked path would pack,
// and for Bᵀ transpose, all of B to use each element only m times; here B
// is streamed once from where it lies, the m rows of alpha·op(A) (packed,
// they are small) are reused from cache, and the columns of C are split
// over goroutines (never the sum over k).
//
// Results: with B stored k×n (!transB) every element is beta·c + Σₚ
// (alpha·a)·b summed in order of p, the same operations as the blocked
// path, so the bits are the blocked path's. With Bᵀ stored n×k (transB)
// an element is the dot product of two contiguous rows: the vector levels
// sum it in lanes, then across the lanes in a fixed tree, and add it to
// beta·c; the pure-Go level sums in order of p (the blocked path's bits).
// Either way an element does not depend on m, on the other rows, on the
// column split or on the thread count.

// gemmSmallM is the largest m that takes the small path (measured: up to
// 16 rows it beats the blocked path in both layouts). Tests set it to 0 to
// compare with the blocked path.
var gemmSmallM = 16

// smallKernels are one level's kernels for the small path. a holds rows of
// alpha·op(A) with stride kp, zero-padded from k to a multiple of 16.
type smallKernels struct {
	// dotRxC adds the products of R rows of a with C vectors b_c (k values
	// each) into the accumulators acc: lanes floats per (row, column),
	// rows 4 accumulators apart, so element (r, c) sums into
	// acc[(4r+c)·lanes:]. A level with lanes > 1 adds a[p]·b[p] into lane
	// p mod lanes, one fused multiply-add each, and sum adds the lanes up;
	// the pure-Go level (lanes = 1) sums in order of p. Only a last block
	// may have k not a multiple of 16.
	// With dot4x2 and dot2x4 nil (the pure-Go level: more accumulators
	// than 4 spill), every row goes through dot1x4.
	lanes  int
	dot4x2 func(k int, a []float32, kp int, b0, b1 []float32, acc []float32)
	dot2x4 func(k int, a []float32, kp int, b0, b1, b2, b3 []float32, acc []float32)
	dot1x4 func(k int, a []float32, b0, b1, b2, b3 []float32, acc []float32)
	sum    func(acc []float32) float32

	// nn[g] sets the tile C[0:R, 0:nnw] (R = 4, 2, 1 for g = 0, 1, 2) to
	// beta·c + Σₚ a[r·kp+p]·b[p·ldb+j], in order of p, with the blocked
	// micro-kernel's operations. nnTail does the same for R rows × cols
	// columns, cols < nnw. nnKC is the block of k (see nn).
	nnw    int
	nnKC   int
	nn     [3]func(k int, a []float32, kp int, b []float32, ldb int, c []float32, ldc int, beta float32)
	nnTail func(rows, k int, a []float32, kp int, b []float32, ldb int, c []float32, ldc int, beta float32, cols int)
}

// smallCall is one small-path call: its columns cut into jobs of whole
// units (4 columns for Bᵀ, nnw for B).
type smallCall struct {
	ks          *smallKernels
	transB      bool
	m, n, k, kp int
	ap          []float32 // alpha·op(A), m rows of kp
	b, c        []float32
	ldb, ldc    int
	beta        float32
	unit, jobs  int
	units       int
	kc          int // k block of nt
}

func gemmSmall32(w int, ks *smallKernels, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if alpha == 0 || k == 0 {
		scaleBlock(c, ldc, m, 0, n, beta)
		return
	}
	s := gemmPool.Get().(*gemmScratch)
	kp := (k + 15) &^ 15
	s.a = grow(s.a, m*kp)
	packRows(s.a, kp, a, lda, transA, m, k, alpha)
	g := smallCall{ks: ks, transB: transB, m: m, n: n, k: k, kp: kp, ap: s.a,
		b: b, c: c, ldb: ldb, ldc: ldc, beta: beta, unit: 4}
	if !transB {
		g.unit = ks.nnw
	}
	g.units = (n + g.unit - 1) / g.unit
	// A block of the m rows of A and the 4 of B fills about 24 KB of L1.
	g.kc = max(256, 6144/(m+4)&^15)
	if float64(m)*float64(n)*float64(k) < 1<<18 {
		w = 1
	}
	// A few jobs per worker, so a core slowed by other work takes fewer.
	g.jobs = min(g.units, 4*w)
	if w = min(w, g.jobs); w <= 1 {
		g.run(0, n)
	} else {
		pg := smallCalls.get() // g itself stays on the stack
		*pg = g
		parallelFor(g.jobs, 1, w, pg)
		smallCalls.put(pg)
	}
	gemmPool.Put(s)
}

var smallCalls pool[smallCall]

// do runs jobs [lo, hi) (parallelFor's body).
func (g *smallCall) do(lo, hi int) {
	for j := lo; j < hi; j++ {
		g.job(j)
	}
}

// job runs job j of g: its columns, all rows.
func (g *smallCall) job(j int) {
	j0 := j * g.units / g.jobs * g.unit
	j1 := min((j+1)*g.units/g.jobs*g.unit, g.n)
	g.run(j0, j1)
}

func (g *smallCall) run(j0, j1 int) {
	if !g.transB {
		g.nn(j0, j1)
		return
	}
	// The accumulators: from the pool, as the kernels' slices escape.
	s := gemmPool.Get().(*gemmScratch)
	na := g.m * 4 * g.ks.lanes
	s.tile = grow(s.tile, na+g.m*4)
	g.nt(j0, j1, s.tile[:na], s.tile[na:])
	gemmPool.Put(s)
}

// nt computes C[:, j0:j1] for B stored n×k, 4 columns (rows of B) at a
// time, in blocks of kc values of k so that the rows of A and the 4 rows
// of B stay in L1 across the row groups. The accumulators wait in memory
// between blocks (exactly: the sums are those of one pass). Past j1 the
// last column stands in for the missing ones; they are not stored.
func (g *smallCall) nt(j0, j1 int, acc, init []float32) {
	ks, k, kp, ap, L := g.ks, g.k, g.kp, g.ap, g.ks.lanes
	for j := j0; j < j1; j += 4 {
		var col [4]int
		var bs [4][]float32
		for q := range 4 {
			col[q] = min(j+q, j1-1)
			bs[q] = g.b[col[q]*g.ldb:][:k]
		}
		for i := range g.m {
			row := g.c[i*g.ldc:]
			for q, jj := range col {
				init[i*4+q] = initAcc(row[jj], g.beta)
			}
		}
		if L == 1 {
			copy(acc, init)
		} else {
			clear(acc)
		}
		for p0 := 0; p0 < k; p0 += g.kc {
			p1 := min(p0+g.kc, k)
			i := 0
			if ks.dot4x2 == nil {
				for ; i < g.m; i++ {
					ks.dot1x4(p1-p0, ap[i*kp+p0:], bs[0][p0:p1], bs[1][p0:p1], bs[2][p0:p1], bs[3][p0:p1], acc[i*4*L:])
				}
			}
			for ; i+4 <= g.m; i += 4 {
				for h := 0; h < 4 && j+h < j1; h += 2 { // a pair past j1 would only redo a column
					ks.dot4x2(p1-p0, ap[i*kp+p0:], kp, bs[h][p0:p1], bs[h+1][p0:p1], acc[(i*4+h)*L:])
				}
			}
			if i+2 <= g.m {
				ks.dot2x4(p1-p0, ap[i*kp+p0:], kp, bs[0][p0:p1], bs[1][p0:p1], bs[2][p0:p1], bs[3][p0:p1], acc[i*4*L:])
				i += 2
			}
			if i < g.m {
				ks.dot1x4(p1-p0, ap[i*kp+p0:], bs[0][p0:p1], bs[1][p0:p1], bs[2][p0:p1], bs[3][p0:p1], acc[i*4*L:])
			}
		}
		for i := range g.m {
			row := g.c[i*g.ldc:]
			for q, jj := range col[:min(4, j1-j)] {
				if L == 1 {
					row[jj] = acc[i*4+q]
				} else {
					row[jj] = init[i*4+q] + ks.sum(acc[(i*4+q)*L:])
				}
			}
		}
	}
}

// nn computes C[:, j0:j1] for B stored k×n in strips of nnStrip columns
// and blocks of nnKC rows of B: each row of a block is read as one run of
// nnStrip columns, which the hardware prefetcher follows (a tile walking
// down all of k touches a new page per row: measured 1.5–2× slower for
// n = 14505), and the block is reused from L1/L2 by all row groups. The
// tiles of C are stored between blocks and reloaded (beta = 1 past the
// first block), which the blocked path does too: the same bits.
func (g *smallCall) nn(j0, j1 int) {
	const nnStrip = 2048
	ks, k, kp, ap, w, nnKC := g.ks, g.k, g.kp, g.ap, g.ks.nnw, g.ks.nnKC
	full := j0 + (j1-j0)/w*w
	for s0 := j0; s0 < full; s0 += nnStrip {
		s1 := min(s0+nnStrip, full)
		for p0 := 0; p0 < k; p0 += nnKC {
			kc, beta := min(nnKC, k-p0), g.beta
			if p0 > 0 {
				beta = 1
			}
			b := g.b[p0*g.ldb:]
			for j := s0; j < s1; j += w {
				i := 0
				for ; i+4 <= g.m; i += 4 {
					ks.nn[0](kc, ap[i*kp+p0:], kp, b[j:], g.ldb, g.c[i*g.ldc+j:], g.ldc, beta)
				}
				if i+2 <= g.m {
					ks.nn[1](kc, ap[i*kp+p0:], kp, b[j:], g.ldb, g.c[i*g.ldc+j:], g.ldc, beta)
					i += 2
				}
				if i < g.m {
					ks.nn[2](kc, ap[i*kp+p0:], kp, b[j:], g.ldb, g.c[i*g.ldc+j:], g.ldc, beta)
				}
			}
		}
	}
	if full < j1 {
		ks.nnTail(g.m, k, ap, kp, g.b[full:], g.ldb, g.c[full:], g.ldc, g.beta, j1-full)
	}
}

// packRows writes alpha·op(A)[0:m, 0:k] row by row with stride kp, zero
// from k to kp.
func packRows(dst []float32, kp int, a []float32, lda int, trans bool, m, k int, alpha float32) {
	for i := range m {
		d := dst[i*kp : (i+1)*kp]
		clear(d[k:])
		d = d[:k]
		if trans {
			for p := range d {
				d[p] = alpha * a[p*lda+i]
			}
			continue
		}
		src := a[i*lda : i*lda+k]
		if alpha == 1 {
			copy(d, src)
			continue
		}
		for p, v := range src {
			d[p] = alpha * v
		}
	}
}

// betaMode is how a kernel starts its accumulators from beta: the vector
// kernels compare beta once, before their first vector instruction, since
// a scalar compare between vector instructions is a legacy SSE UCOMISS.
type betaMode int

const (
	betaZero  betaMode = iota // 0, without reading C
	betaOne                   // C as it is
	betaScale                 // beta·C
)

func modeOf(beta float32) betaMode {
	switch beta {
	case 0:
		return betaZero
	case 1:
		return betaOne
	}
	return betaScale
}

// initAcc is an accumulator's start: beta·c, or 0 without reading c.
func initAcc(c, beta float32) float32 {
	switch beta {
	case 0:
		return 0
	case 1:
		return c
	}
	return beta * c
}
