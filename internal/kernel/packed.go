package kernel

import "fmt"

// A GEMM operand B that many calls share (a model's weights or the entity
// features while it answers queries, the weights within a training step)
// is packed once into the blocked kernels' panels, so that the calls run
// the register-blocked micro-kernel without repacking B: a call of a
// handful of rows instead of the small path, which streams B as dot
// products and costs more from about 4 rows on; a call of many rows
// without packing B's blocks for each of its jobs.

// PackedB is op(B), k × n, packed for the blocked float32 kernels of the
// level current when it was packed. Immutable (until PackBInto reuses its
// storage); safe for concurrent use.
type PackedB struct {
	k, n, nr int
	kc       int // the k block (kcStep)
	lvl      level
	panels   []float32 // per k block of kc: ⌈n/nr⌉ panels of kc × nr
	// The operand as given: for more than 16 rows, and for another level.
	b      []float32
	ldb    int
	transB bool
}

// K and N are op(B)'s dimensions.
func (p *PackedB) K() int { return p.k }
func (p *PackedB) N() int { return p.n }

// PackB packs op(B) (k × n; stored n × k when transB) for GemmPacked. b
// must not change while the result is in use.
func PackB(transB bool, k, n int, b []float32, ldb int) *PackedB {
	return PackBInto(nil, transB, k, n, b, ldb)
}

// PackBInto is PackB reusing the storage of old (which may be nil), which
// must no longer be in use: for operands packed again every time they
// change, such as a model's weights in training.
func PackBInto(old *PackedB, transB bool, k, n int, b []float32, ldb int) *PackedB {
	defer clearUpper()
	checkGemm(false, transB, 0, n, k, 0, max(k, 1), len(b), ldb, 0, max(n, 1))
	kern := &cur.gemm
	nr := kern.nr
	pn := (n + nr - 1) / nr
	var panels []float32
	if old != nil && cap(old.panels) >= pn*nr*k {
		panels = old.panels[:pn*nr*k]
	} else {
		panels = make([]float32, pn*nr*k) // no room to spare: packs are kept
	}
	p := &PackedB{k: k, n: n, nr: nr, kc: kcStep(k, false), lvl: cur.level, b: b, ldb: ldb, transB: transB, panels: panels}
	body := packBody{p: p, kern: kern}
	parallelFor((k+p.kc-1)/p.kc, 1, workers(), &body)
	return p
}

type packBody struct {
	p    *PackedB
	kern *gemmKernel
}

// do packs k blocks [lo, hi).
func (b *packBody) do(lo, hi int) {
	p := b.p
	for blk := lo; blk < hi; blk++ {
		pc := blk * p.kc
		kc := min(p.kc, p.k-pc)
		dst := p.panels[pc*p.nPad():]
		if b.kern.packB != nil {
			b.kern.packB(dst, p.b, p.ldb, p.transB, pc, kc, 0, p.n)
		} else {
			packBGo(dst, p.b, p.ldb, p.transB, pc, kc, 0, p.n, p.nr)
		}
	}
}

func (p *PackedB) nPad() int { return (p.n + p.nr - 1) / p.nr * p.nr }

// GemmPacked computes C = alpha·A·op(B) + beta·C with A m × k (row stride
// lda) and op(B) packed. The bits are those of Gemm(false, p's transB, …)
// on its blocked path (more than 16 rows), whatever m is.
func GemmPacked(m int, alpha float32, a []float32, lda int, p *PackedB, beta float32, c []float32, ldc int) {
	gemmPacked(workers(), m, alpha, a, lda, p, beta, c, ldc)
}

// GemmPackedSerial is GemmPacked on the calling goroutine alone, with the
// same bits: for callers that keep the cores busy with independent products
// themselves, where splitting each small product would cost more in
// hand-offs than it gains.
func GemmPackedSerial(m int, alpha float32, a []float32, lda int, p *PackedB, beta float32, c []float32, ldc int) {
	gemmPacked(1, m, alpha, a, lda, p, beta, c, ldc)
}

func gemmPacked(w, m int, alpha float32, a []float32, lda int, p *PackedB, beta float32, c []float32, ldc int) {
	defer clearUpper()
	checkGemm(false, false, m, p.n, p.k, len(a), lda, p.nPad()*p.k, p.nPad(), len(c), ldc)
	kern := &cur.gemm
	if p.lvl != cur.level || kern.nr != p.nr {
		gemm32(w, kern, false, p.transB, m, p.n, p.k, alpha, a, lda, p.b, p.ldb, beta, c, ldc)
		return
	}
	if m == 0 || p.n == 0 {
		return
	}
	if m > gemmSmallM {
		// Many rows: the blocked path, reading B's blocks from the panels
		// instead of packing them.
		g := gemmCall{kern: kern, transB: p.transB, m: m, n: p.n, k: p.k, kc: p.kc, alpha: alpha,
			a: a, lda: lda, b: p.b, ldb: p.ldb, beta: beta, c: c, ldc: ldc,
			panels: p.panels, ldp: p.nPad()}
		g.run(w)
		return
	}
	g := packedCall{kern: kern, p: p, m: m, alpha: alpha, a: a, lda: lda, beta: beta, c: c, ldc: ldc}
	g.pn = (p.n + p.nr - 1) / p.nr
	if float64(m)*float64(p.n)*float64(p.k) < 1<<18 {
		w = 1
	}
	// A few jobs per worker, so a core slowed by other work takes fewer.
	g.jobs = min(g.pn, 4*w)
	if w = min(w, g.jobs); w <= 1 {
		g.do(0, g.jobs)
		return
	}
	pg := packedCalls.get()
	*pg = g
	parallelForNow(g.jobs, 1, w, pg)
	packedCalls.put(pg)
}

var packedCalls pool[packedCall]

// packedChunk is the columns of B whose panels (kc × 256 floats, 256 KB)
// all row blocks of A go over in turn; a multiple of every level's nr.
const packedChunk = 256

// packedCall is one GemmPacked call; its jobs are ranges of B's panels,
// all rows of A each.
type packedCall struct {
	kern        *gemmKernel
	p           *PackedB
	m           int
	alpha, beta float32
	a, c        []float32
	lda, ldc    int
	pn, jobs    int
}

func (g *packedCall) do(lo, hi int) {
	s := gemmPool.Get().(*gemmScratch)
	kern, p, mr := g.kern, g.p, g.kern.mr
	pm := (g.m + mr - 1) / mr
	kc0 := min(p.k, p.kc)
	if g.alpha != 1 {
		s.a = grow(s.a, pm*mr*kc0)
	}
	s.tile = grow(s.tile, mr*p.nr)
	s.edgeA = grow(s.edgeA, mr*kc0)
	for job := lo; job < hi; job++ {
		j0 := job * g.pn / g.jobs * p.nr
		j1 := min((job+1)*g.pn/g.jobs*p.nr, p.n)
		if g.alpha == 0 || p.k == 0 {
			scaleBlock(g.c, g.ldc, g.m, j0, j1, g.beta)
			continue
		}
		if g.beta != 0 {
			scaleBlock(g.c, g.ldc, g.m, j0, j1, g.beta)
		}
		for pc := 0; pc < p.k; pc += p.kc {
			kc := min(p.kc, p.k-pc)
			// A is read in place unless alpha has to be applied.
			a := opA{d: g.a[pc:], off: g.lda, ar: g.lda, ap: 1}
			if g.alpha != 1 {
				packAGo(s.a, g.a, g.lda, false, 0, g.m, pc, kc, mr, g.alpha)
				a = opA{d: s.a, off: kc, ar: 1, ap: mr, packed: true}
			}
			// Column chunks whose panels stay in L2 while every row
			// block of A passes over them.
			for jc := j0; jc < j1; jc += packedChunk {
				gemmBlock(kern, kc, a, p.panels[pc*p.nPad()+jc*kc:], s, g.c, g.ldc, 0, g.m, jc, min(jc+packedChunk, j1), pc > 0 || g.beta != 0)
			}
		}
	}
	gemmPool.Put(s)
}

func (p *PackedB) String() string {
	return fmt.Sprintf("PackedB(%d×%d, nr %d, %s)", p.k, p.n, p.nr, p.lvl)
}
