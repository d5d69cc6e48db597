package gamma

import "github.com/gammae/gammae/internal/kernel"

// anchorNode gathers the raw entity rows of its slot: a query anchor uses
// the table as is, without the regulariser applied to candidates.
type anchorNode[T kernel.Float] struct{ *instr }

func (n *anchorNode[T]) forward(e *exec[T]) {
	d := e.m.cfg.Dim
	tab := e.m.params[e.m.entity].Data
	v := &e.r.vals[n.out]
	eachHalf(e.r.rows*d, func(beta bool) {
		dst, off := v.a, 0
		if beta {
			dst, off = v.b, d
		}
		for b := 0; b < e.r.rows; b++ {
			row := tab[e.id(b, n.slot)*2*d+off:]
			copy(dst[b*d:(b+1)*d], row[:d])
		}
	})
}

func (n *anchorNode[T]) backward(e *exec[T]) {
	d := e.m.cfg.Dim
	g := e.m.grad(e.m.entity)
	v := &e.r.vals[n.out]
	// Rows repeat (one entity anchors many queries), so the cores split
	// the halves of each row rather than the rows.
	eachHalf(e.r.rows*d, func(beta bool) {
		src, off := v.da, 0
		if beta {
			src, off = v.db, d
		}
		for b := 0; b < e.r.rows; b++ {
			row := g[e.id(b, n.slot)*2*d+off:]
			add(row[:d], src[b*d:(b+1)*d])
		}
	})
}

// add sets dst += src.
func add[T kernel.Float](dst, src []T) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] += v
	}
}
