package kernel

// The bodies of the parallel elementwise kernels (see parallelFor), each
// with its pool.

// mapBody runs f(dst, x) on matching chunks: the special functions, exp,
// log, ReLU backward.
type mapBody struct {
	f      func(dst, x []float32)
	dst, x []float32
}

func (b *mapBody) do(lo, hi int) { b.f(b.dst[lo:hi], b.x[lo:hi]) }

var mapBodies pool[mapBody]

// axpyBody runs y += alpha·x, or x *= alpha when y is nil.
type axpyBody struct {
	alpha float32
	x, y  []float32
}

func (b *axpyBody) do(lo, hi int) {
	if b.y == nil {
		cur.scale(b.alpha, b.x[lo:hi])
		return
	}
	cur.axpy(b.alpha, b.x[lo:hi], b.y[lo:hi])
}

var axpyBodies pool[axpyBody]

// rowsBody runs f on rows [lo, hi) of c against bias.
type rowsBody struct {
	f       func(c, bias []float32)
	c, bias []float32
	cols    int
}

func (b *rowsBody) do(lo, hi int) {
	for i := lo; i < hi; i++ {
		b.f(b.c[i*b.cols:(i+1)*b.cols], b.bias)
	}
}

var rowsBodies pool[rowsBody]

// affineBody runs cur.affine on rows [lo, hi) of c.
type affineBody struct {
	c, x, b []float32
	a       float32
	cols    int
}

func (ab *affineBody) do(lo, hi int) {
	for i := lo; i < hi; i++ {
		cur.affine(ab.c[i*ab.cols:(i+1)*ab.cols], ab.x, ab.a, ab.b[i])
	}
}

var affineBodies pool[affineBody]

// sumRowsBody sums the columns [lo, hi) of x into dst, a strip at a time.
type sumRowsBody struct {
	dst, x     []float32
	rows, cols int
}

func (b *sumRowsBody) do(lo, hi int) {
	const strip = 1024 // columns at a time: the dst strip stays in L1
	for j0 := lo; j0 < hi; j0 += strip {
		j1 := min(j0+strip, hi)
		d := b.dst[j0:j1]
		clear(d)
		for i := range b.rows {
			cur.addTo(d, b.x[i*b.cols+j0:i*b.cols+j1])
		}
	}
}

var sumRowsBodies pool[sumRowsBody]
