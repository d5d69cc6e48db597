package kernel

import "sync"

// Blocked float32 GEMM (the Goto/BLIS scheme). C is cut into jobs (only as
// many as the workers need to balance); a job scales its C block by beta,
// then for every k block (kcStep) and every column block of at most gemmNC
// sweeps the micro-kernel over mr-row panels of op(A) and nr-column panels
// of op(B): an A panel stays in L1 while the kc × nc B block stays in L2.
//
// B is packed one column block at a time, unless it comes packed whole
// (GemmPacked): then its blocks are read from the panels. A is read in
// place unless alpha ≠ 1: as stored (rows along k), or, by the vector
// levels' kernels (8 or 6 rows), as stored Aᵀ (a panel's k step is 8
// contiguous floats, half a cache line, whose other half the next panel
// reads; packing it cost ~2 % of an iteration). The pure-Go kernel (one
// row) gets a stored Aᵀ packed gemmMCSub rows at a time. Packing A whole, as BLIS does, cost 5–10 % of the products
// here (with 2d ≤ 1600 a packed element serves only a few hundred FLOPs),
// and a job's packed A (1,227 rows × kc) pushed the B block out of L2.
// Reading B in place as well measured 10–30 % slower on cold operands
// (rows of B strided by ldb: a page per k step).
//
// The micro-kernel accumulates straight into C (from zero in the first k
// block when beta = 0), so every element is beta·c + Σ_p (alpha·a_ip)·b_pj
// summed in order of p by the same kernel code, whatever the job split,
// thread count or operand layout: results are deterministic. Edge tiles
// run the same kernel on zero-padded copies.
const (
	gemmKC     = 256
	gemmKCRows = 512
	gemmNC     = 512
	gemmMCSub  = 64 // rows of A packed at a time (whole panels, at most): 64–128 KB, beside the B block in L2
)

// kcStep is the k block of a product with inner size k: the fewest blocks
// of at most gemmKC floats, or gemmKCRows when op(A) is read as rows (not
// transposed), as even as whole steps allow. Each k block reads and writes
// the whole C block once more, so a short last block (k = 800 was cut
// 256, 256, 256, 32) costs nearly as much C traffic as a full one; and an
// A panel read as rows takes 8·kc contiguous floats of L1, where a stored
// Aᵀ read in place takes kc half-used cache lines (longer blocks, 384 to
// 512, did not make those products faster). The bits of C do not depend
// on the blocking: the kernel adds the k steps in order, through C.
// Measured on the d=400 and d=800 layer shapes, alternating with even
// blocks of at most 256: 4–6 % faster for the forward and input-gradient
// products.
func kcStep(k int, transA bool) int {
	kmax := gemmKCRows
	if transA {
		kmax = gemmKC
	}
	if k <= kmax {
		return max(k, 1)
	}
	nb := (k + kmax - 1) / kmax
	return (k + nb - 1) / nb
}

// gemmKernel is a micro-kernel, its tile size and the packers that feed it.
type gemmKernel struct {
	mr, nr int
	// micro adds Σ_p a[r·ar + p·ap]·b[p·bp + j], p < k, to the mr×nr tile of
	// c with row stride ldc; with load false it starts from zero instead of
	// reading c (the same bits as adding to a cleared tile).
	micro func(k int, a []float32, ar, ap int, b []float32, bp int, c []float32, ldc int, load bool)
	// half, if not nil, is micro on the first nr/2 columns of the tile
	// alone, with the same bits: for full-height edge tiles of nr/2
	// columns (n = 400 with nr = 32), written to C in place instead of
	// computing a padded tile.
	half func(k int, a []float32, ar, ap int, b []float32, bp int, c []float32, ldc int, load bool)
	// packB lays out B's blocks; nil means the scalar packer. A, read in
	// place, is packed only to apply alpha ≠ 1 (or, for kernels that do not
	// read a stored Aᵀ, to transpose it): always by the scalar packer.
	packB func(dst, b []float32, ldb int, trans bool, p0, kc, j0, nc int)
	// readsAT says the kernel reads a stored Aᵀ in place (its mr floats of
	// a row per k step) rather than from packed panels.
	readsAT bool
	// small is the path for m ≤ gemmSmallM (gemm_small.go).
	small *smallKernels
}

// opA is a block of op(A) as the micro-kernel reads it: the panel of rows
// from i0 + q starts at d[q·off], its element (r, p) at r·ar + p·ap.
// Packed panels (off kc, ar 1, ap mr) are zero-padded to whole panels.
type opA struct {
	d           []float32
	off, ar, ap int
	packed      bool
}

type gemmScratch struct{ a, b, tile, edgeA []float32 }

var gemmPool = sync.Pool{New: func() any { return new(gemmScratch) }}

// grow returns s resized to n, reallocating with a quarter to spare (the
// scratch of products whose sizes vary a little from call to call).
func grow(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n, n+n/4)
	}
	return s[:n]
}

// gemmSplit cuts the m×n result into rows×cols jobs of whole panels: one
// for one worker, else at least 2 per worker when the panels allow, so the
// dynamic schedule can balance. The split changes no result bit. Every
// row job packs its own copy of B's blocks, and with packA every column
// job its own copy of A's: column jobs come first unless A is packed too,
// when the split alternates (2×2 packs each operand twice, 1×4 A four
// times).
func gemmSplit(m, n, mr, nr, w int, packA bool) (rows, cols int) {
	pm, pn := (m+mr-1)/mr, (n+nr-1)/nr
	rows, cols = 1, 1
	for w > 1 && rows*cols < 2*w {
		colFirst := !packA || cols <= rows
		switch {
		case colFirst && pn >= 2*(cols+1):
			cols++
		case pm >= 8*(rows+1):
			rows++
		case pn >= 2*(cols+1):
			cols++
		default:
			return
		}
	}
	return
}

func gemm32(w int, kern *gemmKernel, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if m <= gemmSmallM {
		gemmSmall32(w, kern.small, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	g := gemmCall{kern: kern, transA: transA, transB: transB, m: m, n: n, k: k, kc: kcStep(k, transA),
		alpha: alpha, a: a, lda: lda, b: b, ldb: ldb, beta: beta, c: c, ldc: ldc}
	g.run(w)
}

// run computes g on up to w goroutines.
func (g gemmCall) run(w int) {
	kern, m, n := g.kern, g.m, g.n
	if float64(m)*float64(n)*float64(g.k) < 1<<18 {
		w = 1 // too small to pay for goroutines
	}
	g.rows, g.cols = gemmSplit(m, n, kern.mr, kern.nr, w, g.packsA())

	g.pm, g.pn = (m+kern.mr-1)/kern.mr, (n+kern.nr-1)/kern.nr
	jobs := g.rows * g.cols
	if w = min(w, jobs); w <= 1 {
		s := g.scratch()
		for job := range jobs {
			g.job(s, job)
		}
		gemmPool.Put(s)
		return
	}
	pg := gemmCalls.get() // g itself stays on the stack
	*pg = g
	parallelFor(jobs, 1, w, pg)
	gemmCalls.put(pg)
}

var gemmCalls pool[gemmCall]

// do runs jobs [lo, hi) with scratch from the pool (parallelFor's body).
func (g *gemmCall) do(lo, hi int) {
	s := g.scratch()
	for job := lo; job < hi; job++ {
		g.job(s, job)
	}
	gemmPool.Put(s)
}

// gemmCall is one Gemm call cut into rows×cols jobs over pm×pn panels.
type gemmCall struct {
	kern               *gemmKernel
	transA, transB     bool
	m, n, k            int
	kc                 int // the k block (kcStep)
	alpha, beta        float32
	a, b, c            []float32
	lda, ldb, ldc      int
	rows, cols, pm, pn int
	// panels is op(B) packed whole (PackedB.panels, k blocks of ldp floats
	// per k step), read instead of packing B's blocks; nil packs them.
	panels []float32
	ldp    int
}

// scratch takes buffers big enough for any job of g from the pool.
func (g *gemmCall) scratch() *gemmScratch {
	s := gemmPool.Get().(*gemmScratch)
	mr, nr, kc := g.kern.mr, g.kern.nr, g.kc
	if g.packsA() {
		s.a = grow(s.a, gemmMCSub*kc)
	}
	if g.panels == nil {
		s.b = grow(s.b, (gemmNC+nr)*kc)
	}
	s.tile = grow(s.tile, mr*nr)
	s.edgeA = grow(s.edgeA, mr*kc)
	return s
}

// packsA reports whether g packs op(A): alpha has to be applied, or A is
// stored transposed and the kernel does not read it in place (the
// one-row pure-Go kernel would use one float of a cache line per k step).
func (g *gemmCall) packsA() bool { return g.transA && !g.kern.readsAT || g.alpha != 1 }

// job computes the C block of one job: beta·C, then the k blocks in order.
func (g *gemmCall) job(s *gemmScratch, job int) {
	kern, mr, nr := g.kern, g.kern.mr, g.kern.nr
	jr, jc := job/g.cols, job%g.cols
	i0, i1 := jr*g.pm/g.rows*mr, min((jr+1)*g.pm/g.rows*mr, g.m)
	j0, j1 := jc*g.pn/g.cols*nr, min((jc+1)*g.pn/g.cols*nr, g.n)
	if g.alpha == 0 || g.k == 0 {
		scaleBlock(g.c[i0*g.ldc:], g.ldc, i1-i0, j0, j1, g.beta)
		return
	}
	if g.beta != 0 {
		scaleBlock(g.c[i0*g.ldc:], g.ldc, i1-i0, j0, j1, g.beta)
	} // else the first k block overwrites C
	// Column blocks of whole panels, as even as gemmNC allows.
	pn := (j1 - j0 + nr - 1) / nr
	nb := (pn*nr + gemmNC - 1) / gemmNC
	for pc := 0; pc < g.k; pc += g.kc {
		kc := min(g.kc, g.k-pc)
		load := pc > 0 || g.beta != 0
		for q := range nb {
			jb, je := j0+q*pn/nb*nr, min(j0+(q+1)*pn/nb*nr, j1)
			bp := s.b
			switch {
			case g.panels != nil:
				bp = g.panels[pc*g.ldp+jb*kc:]
			case kern.packB != nil:
				kern.packB(s.b, g.b, g.ldb, g.transB, pc, kc, jb, je-jb)
			default:
				packBGo(s.b, g.b, g.ldb, g.transB, pc, kc, jb, je-jb, nr)
			}
			if !g.packsA() {
				var a opA
				if g.transA {
					// Rows one float apart, k steps a stored row apart.
					a = opA{d: g.a[pc*g.lda+i0:], off: 1, ar: 1, ap: g.lda}
				} else {
					a = opA{d: g.a[i0*g.lda+pc:], off: g.lda, ar: g.lda, ap: 1}
				}
				gemmBlock(kern, kc, a, bp, s, g.c, g.ldc, i0, i1, jb, je, load)
				continue
			}
			mcs := gemmMCSub / mr * mr // whole panels
			for ib := i0; ib < i1; ib += mcs {
				ie := min(ib+mcs, i1)
				packAGo(s.a, g.a, g.lda, g.transA, ib, ie-ib, pc, kc, mr, g.alpha)
				a := opA{d: s.a, off: kc, ar: 1, ap: mr, packed: true}
				gemmBlock(kern, kc, a, bp, s, g.c, g.ldc, ib, ie, jb, je, load)
			}
		}
	}
}

// gemmBlock runs the micro-kernel over the block C[i0:i1, j0:j1] with a k
// block of kc, adding to C (load) or overwriting it. bp holds op(B)'s
// columns j0… packed: nr-column panels of kc × nr, zero-padded. A partial
// last A panel read in place is copied, zero-padded, into s.edgeA (the
// kernel reads whole panels); partial C tiles go through s.tile.
func gemmBlock(kern *gemmKernel, kc int, a opA, bp []float32, s *gemmScratch, c []float32, ldc, i0, i1, j0, j1 int, load bool) {
	mr, nr := kern.mr, kern.nr
	for ir := i0; ir < i1; ir += mr {
		rows := min(mr, i1-ir)
		pa, ar, ap := a.d[(ir-i0)*a.off:], a.ar, a.ap
		if rows < mr && !a.packed {
			edge := s.edgeA[:kc*mr]
			clear(edge)
			for r := range rows {
				for p := range kc {
					edge[p*mr+r] = pa[r*ar+p*ap]
				}
			}
			pa, ar, ap = edge, 1, mr
		}
		for jr := j0; jr < j1; jr += nr {
			cols := min(nr, j1-jr)
			pb := bp[(jr-j0)*kc:]
			if rows == mr && cols == nr {
				kern.micro(kc, pa, ar, ap, pb, nr, c[ir*ldc+jr:], ldc, load)
				continue
			}
			if rows == mr && cols == nr/2 && kern.half != nil {
				kern.half(kc, pa, ar, ap, pb, nr, c[ir*ldc+jr:], ldc, load)
				continue
			}
			// Edge tile: same kernel on a zero-padded copy.
			tile := s.tile
			if load {
				clear(tile)
				for r := range rows {
					copy(tile[r*nr:r*nr+cols], c[(ir+r)*ldc+jr:])
				}
			}
			kern.micro(kc, pa, ar, ap, pb, nr, tile, nr, load)
			for r := range rows {
				copy(c[(ir+r)*ldc+jr:(ir+r)*ldc+jr+cols], tile[r*nr:])
			}
		}
	}
}

// scaleBlock sets C[0:rows, j0:j1] = beta·C; beta = 0 writes zeros without
// reading C, so NaNs in C do not propagate.
func scaleBlock(c []float32, ldc, rows, j0, j1 int, beta float32) {
	if beta == 1 {
		return
	}
	for i := range rows {
		row := c[i*ldc+j0 : i*ldc+j1]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}

// packAGo writes alpha·op(A)[i0:i0+mc, p0:p0+kc] as mr-row panels: panel q
// holds element (q·mr+r, p) at q·mr·kc + p·mr + r. Rows past mc are zero.
func packAGo(dst, a []float32, lda int, trans bool, i0, mc, p0, kc, mr int, alpha float32) {
	for q := 0; q*mr < mc; q++ {
		pan := dst[q*mr*kc : (q+1)*mr*kc]
		rows := min(mr, mc-q*mr)
		if rows < mr {
			clear(pan)
		}
		i := i0 + q*mr
		if trans {
			// op(A)[i][p] = a[p·lda+i]: a panel row is contiguous in a.
			for p := range kc {
				src := a[(p0+p)*lda+i : (p0+p)*lda+i+rows]
				d := pan[p*mr : p*mr+rows]
				if alpha == 1 {
					copy(d, src)
				} else {
					for r, v := range src {
						d[r] = alpha * v
					}
				}
			}
			continue
		}
		for r := range rows {
			src := a[(i+r)*lda+p0 : (i+r)*lda+p0+kc]
			if alpha == 1 {
				for p, v := range src {
					pan[p*mr+r] = v
				}
			} else {
				for p, v := range src {
					pan[p*mr+r] = alpha * v
				}
			}
		}
	}
}

// packBGo writes op(B)[p0:p0+kc, j0:j0+nc] as nr-column panels: panel q holds
// element (p, q·nr+c) at q·nr·kc + p·nr + c. Columns past nc are zero.
func packBGo(dst, b []float32, ldb int, trans bool, p0, kc, j0, nc, nr int) {
	if nc%nr != 0 {
		q := nc / nr
		clear(dst[q*nr*kc : (q+1)*nr*kc])
	}
	if !trans {
		// Row by row, so each row of b is read as one contiguous run.
		for p := range kc {
			row := b[(p0+p)*ldb+j0 : (p0+p)*ldb+j0+nc]
			for q := 0; q*nr < nc; q++ {
				cols := min(nr, nc-q*nr)
				copy(dst[q*nr*kc+p*nr:q*nr*kc+p*nr+cols], row[q*nr:])
			}
		}
		return
	}
	// op(B)[p][j] = b[j·ldb+p]: transpose in 16-deep strips so the writes
	// of a strip stay in a few cache lines.
	for q := 0; q*nr < nc; q++ {
		pan := dst[q*nr*kc : (q+1)*nr*kc]
		cols := min(nr, nc-q*nr)
		j := j0 + q*nr
		for ps := 0; ps < kc; ps += 16 {
			pe := min(ps+16, kc)
			for c := range cols {
				src := b[(j+c)*ldb+p0+ps : (j+c)*ldb+p0+pe]
				for p, v := range src {
					pan[(ps+p)*nr+c] = v
				}
			}
		}
	}
}
