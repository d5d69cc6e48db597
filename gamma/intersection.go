package gamma

import (
	"github.com/gammae/gammae/internal/kernel"
)

// intersectNode is the reference's intersection of k inputs: for each input
// x = [α; β], attention logits Lin2(ReLU(Lin1(x))) per dimension, softmax
// over the inputs, separately for α and β; the output is the weighted sum.
type intersectNode[T kernel.Float] struct {
	*instr
	a, b   mlp[T] // the α and β attention nets; they share the input
	wa, wb []T    // softmax weights, (k·rows) × d
}

// stackInputs writes x[(i·rows + r)] = [αᵢ[r]; βᵢ[r]] for every input i.
func stackInputs[T kernel.Float](e *exec[T], ins []int, x []T) {
	rows, d := e.r.rows, e.m.cfg.Dim
	for i, v := range ins {
		val := &e.r.vals[v]
		for r := 0; r < rows; r++ {
			row := x[(i*rows+r)*2*d:]
			copy(row[:d], val.a[r*d:(r+1)*d])
			copy(row[d:2*d], val.b[r*d:(r+1)*d])
		}
	}
}

// softmaxInputs replaces logits (k blocks of n values) by the softmax over
// the k blocks at each position. The exponentials are one kernel.Exp over
// all blocks (float32 lanes; math.Exp per value was ~1 % of a training
// iteration).
func softmaxInputs[T kernel.Float](logits []T, k, n int) {
	logits = logits[:k*n]
	for j := 0; j < n; j++ {
		mx := logits[j]
		for i := 1; i < k; i++ {
			mx = max(mx, logits[i*n+j])
		}
		for i := 0; i < k; i++ {
			logits[i*n+j] -= mx
		}
	}
	kernel.Exp(logits, logits)
	for j := 0; j < n; j++ {
		var s T
		for i := 0; i < k; i++ {
			s += logits[i*n+j]
		}
		for i := 0; i < k; i++ {
			logits[i*n+j] /= s
		}
	}
}

// softmaxInputsBackward turns dw (gradient of the softmax weights w, k
// blocks of n) into the gradient of the logits, in place.
func softmaxInputsBackward[T kernel.Float](w, dw []T, k, n int) {
	for j := 0; j < n; j++ {
		var s T
		for i := 0; i < k; i++ {
			s += w[i*n+j] * dw[i*n+j]
		}
		for i := 0; i < k; i++ {
			dw[i*n+j] = w[i*n+j] * (dw[i*n+j] - s)
		}
	}
}

func (n *intersectNode[T]) forward(e *exec[T]) {
	m, rows, d, k := e.m, e.r.rows, e.m.cfg.Dim, len(n.in)
	n.a.prepare(m.interA, k*rows)
	n.b.prepare(m.interB, k*rows)
	n.b.acts[0] = n.a.acts[0]
	stackInputs(e, n.in, n.a.input())
	out := &e.r.vals[n.out]
	// Each side finishes its half of the output: the attention weights
	// and the weighted sum run on both cores too.
	m.sideBySide(inferProd(e.train), k*rows,
		func(pm prod) {
			m.mlpForward(m.interA, &n.a, k*rows, pm)
			n.wa = append(n.wa[:0], n.a.output()...)
			softmaxInputs(n.wa, k, rows*d)
			weightedSum(out.a[:rows*d], n.wa, e, n.in, func(v *value[T]) []T { return v.a })
		},
		func(pm prod) {
			m.mlpForward(m.interB, &n.b, k*rows, pm)
			n.wb = append(n.wb[:0], n.b.output()...)
			softmaxInputs(n.wb, k, rows*d)
			weightedSum(out.b[:rows*d], n.wb, e, n.in, func(v *value[T]) []T { return v.b })
		})
}

// weightedSum sets dst = Σᵢ wᵢ ⊙ xᵢ over the inputs.
func weightedSum[T kernel.Float](dst, w []T, e *exec[T], ins []int, get func(*value[T]) []T) {
	n := len(dst)
	clear(dst)
	for i, v := range ins {
		x := get(&e.r.vals[v])
		wi := w[i*n : (i+1)*n]
		for j := range dst {
			dst[j] += wi[j] * x[j]
		}
	}
}

func (n *intersectNode[T]) backward(e *exec[T]) {
	m, rows, d, k := e.m, e.r.rows, e.m.cfg.Dim, len(n.in)
	size := rows * d
	out := &e.r.vals[n.out]
	// The nets run side by side, each in its own scratch; their input
	// gradients (both halves of every input) are added after both.
	side := func(sc *scratch[T], net []layer, act *mlp[T], w, grad []T, isAlpha bool, pm prod) {
		dl := sc.buf(0, k*size)
		for i, v := range n.in {
			val := &e.r.vals[v]
			x, dxi := val.b, val.db
			if isAlpha {
				x, dxi = val.a, val.da
			}
			wi, dli := w[i*size:(i+1)*size], dl[i*size:(i+1)*size]
			for j, g := range grad[:size] {
				dli[j] = g * x[j]
				dxi[j] += g * wi[j]
			}
		}
		softmaxInputsBackward(w, dl, k, size)
		m.mlpBackward(net, act, k*rows, pm, dl, sc.buf(1, k*rows*2*d), sc.buf(2, k*rows*2*d), sc.buf(3, k*rows*2*d), sc.sumOf(m))
	}
	sa, sb := &e.w.sides[0], &e.w.sides[1]
	m.sideBySide(0, k*rows,
		func(pm prod) { side(sa, m.interA, &n.a, n.wa, out.da, true, pm) },
		func(pm prod) { side(sb, m.interB, &n.b, n.wb, out.db, false, pm) })
	addStacked(e, n.in, sa.bufs[1], sb.bufs[1])
}

// addStacked adds the gradients of the stacked inputs [αᵢ; βᵢ] that the α
// net (dxa) and then the β net (dxb) computed to the inputs' gradients.
func addStacked[T kernel.Float](e *exec[T], ins []int, dxa, dxb []T) {
	rows, d := e.r.rows, e.m.cfg.Dim
	eachHalf(len(ins)*rows*d, func(beta bool) {
		off := 0
		if beta {
			off = d
		}
		for i, v := range ins {
			val := &e.r.vals[v]
			dst := val.da
			if beta {
				dst = val.db
			}
			for r := 0; r < rows; r++ {
				x := (i*rows+r)*2*d + off
				add(dst[r*d:(r+1)*d], dxa[x:x+d])
				add(dst[r*d:(r+1)*d], dxb[x:x+d])
			}
		}
	})
}
