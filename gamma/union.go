package gamma

import (
	"math"

	"github.com/gammae/gammae/internal/kernel"
)

// unionFloor replaces outputs of the moment-matching union whose magnitude
// is below it (the reference's guard; no gradient flows there).
const unionFloor = 1e-4

// unionNode is the reference's union of k inputs by moment matching of a
// sum of Gamma variables (Welch–Satterthwaite). Attention logits come from
// a 3-layer net per α and β (2d → d → d/2 → d, ReLU between, dropout on the
// logits in training), softmax over inputs gives aᵢ, bᵢ; with kᵢ = αᵢaᵢ and
// oᵢ = 1/(βᵢbᵢ): α = (Σkᵢoᵢ)² / Σkᵢoᵢ², β = Σkᵢoᵢ / (α·k).
type unionNode[T kernel.Float] struct {
	*instr
	a, b         mlp[T]
	wa, wb       []T // softmax weights aᵢ, bᵢ: (k·rows) × d
	dropA, dropB []T // dropout scale (0 or 1/(1−p)) when dropout ran
	// Σkᵢoᵢ, Σkᵢoᵢ² and α before the floor (rows × d), in float64: with a
	// softmax weight near 0 the oᵢ² overflow float32.
	s1, s2, al []float64
	dS1, dS2   []float64 // gradients of s1 and s2
	dwa, dwb   []float64 // gradients of the weights wa, wb
	dropped    bool
}

func (n *unionNode[T]) forward(e *exec[T]) {
	m, rows, d, k := e.m, e.r.rows, e.m.cfg.Dim, len(n.in)
	size := rows * d
	n.a.prepare(m.unionA, k*rows)
	n.b.prepare(m.unionB, k*rows)
	n.b.acts[0] = n.a.acts[0]
	stackInputs(e, n.in, n.a.input())
	m.sideBySide(inferProd(e.train), k*rows,
		func(pm prod) { m.mlpForward(m.unionA, &n.a, k*rows, pm) },
		func(pm prod) { m.mlpForward(m.unionB, &n.b, k*rows, pm) })
	n.wa = append(n.wa[:0], n.a.output()...)
	n.wb = append(n.wb[:0], n.b.output()...)
	p := m.cfg.UnionDropout
	n.dropped = e.train && p > 0
	if n.dropped {
		scale := T(1 / (1 - p))
		n.dropA, n.dropB = grow(n.dropA, k*size), grow(n.dropB, k*size)
		for _, pair := range [2][2][]T{{n.dropA, n.wa}, {n.dropB, n.wb}} {
			mask, logits := pair[0], pair[1]
			for i := range mask {
				if e.rng.Float64() < p {
					mask[i] = 0
				} else {
					mask[i] = scale
				}
				logits[i] *= mask[i]
			}
		}
	}
	softmaxInputs(n.wa, k, size)
	softmaxInputs(n.wb, k, size)
	n.s1, n.s2, n.al = grow(n.s1, size), grow(n.s2, size), grow(n.al, size)
	clear(n.s1)
	clear(n.s2)
	for i, v := range n.in {
		val := &e.r.vals[v]
		ai, bi := n.wa[i*size:(i+1)*size], n.wb[i*size:(i+1)*size]
		for j := 0; j < size; j++ {
			kk := float64(val.a[j]) * float64(ai[j])
			o := unionO(val.b[j], bi[j])
			n.s1[j] += kk * o
			n.s2[j] += o * o * kk
		}
	}
	out := &e.r.vals[n.out]
	kf := float64(k)
	for j := 0; j < size; j++ {
		al := n.s1[j] * n.s1[j] / n.s2[j]
		be := n.s1[j] / (al * kf)
		n.al[j] = al
		out.a[j], out.b[j] = T(floor(al)), T(floor(be))
	}
}

// minWeight bounds the softmax weight bᵢ in oᵢ = 1/(βᵢbᵢ) away from 0, where
// a float32 softmax underflows and the reference would divide by zero.
const minWeight = 1e-30

// unionO is oᵢ = 1/(βᵢbᵢ) in float64.
func unionO[T kernel.Float](beta, b T) float64 {
	return 1 / (float64(beta) * max(float64(b), minWeight))
}

func floor(x float64) float64 {
	if floored(x) {
		return unionFloor
	}
	return x
}

func floored(x float64) bool { return math.Abs(x) < unionFloor }

func (n *unionNode[T]) backward(e *exec[T]) {
	m, rows, d, k := e.m, e.r.rows, e.m.cfg.Dim, len(n.in)
	size := rows * d
	out := &e.r.vals[n.out]
	kf := float64(k)
	// Gradients of S1 = Σkᵢoᵢ and S2 = Σkᵢoᵢ².
	n.dS1, n.dS2 = grow(n.dS1, size), grow(n.dS2, size)
	dS1, dS2 := n.dS1, n.dS2
	for j := 0; j < size; j++ {
		al := n.al[j]
		be := n.s1[j] / (al * kf)
		var ga, gb float64
		if !floored(al) {
			ga = float64(out.da[j])
		}
		if !floored(be) {
			gb = float64(out.db[j])
		}
		// β = S1/(α·k) with α = S1²/S2.
		gal := ga - gb*be/al
		dS1[j] = gal*2*n.s1[j]/n.s2[j] + gb/(al*kf)
		dS2[j] = -gal * al / n.s2[j]
	}
	// The gradients of the attention weights, dk·αᵢ and dp·βᵢ, stay in
	// float64 through the softmax's backward: where a weight aᵢ underflows
	// to 0 while bᵢ is tiny, oᵢ² and with it dk reach 1e40 and more, which
	// float32 (and the reference) turn into Inf and then 0·Inf = NaN; the
	// logit's gradient aᵢ·(dk·αᵢ − Σ) is 0 there, as it should be.
	n.dwa, n.dwb = grow(n.dwa, k*size), grow(n.dwb, k*size)
	for i, v := range n.in {
		val := &e.r.vals[v]
		ai, bi := n.wa[i*size:(i+1)*size], n.wb[i*size:(i+1)*size]
		dwa, dwb := n.dwa[i*size:(i+1)*size], n.dwb[i*size:(i+1)*size]
		for j := 0; j < size; j++ {
			kk := float64(val.a[j]) * float64(ai[j])
			o := unionO(val.b[j], bi[j])
			dk := dS1[j]*o + dS2[j]*o*o
			do := dS1[j]*kk + dS2[j]*2*kk*o
			val.da[j] += T(dk * float64(ai[j]))
			dwa[j] = dk * float64(val.a[j])
			dp := -do * o * o // p = βᵢ·max(bᵢ, minWeight)
			val.db[j] += T(dp * max(float64(bi[j]), minWeight))
			if float64(bi[j]) >= minWeight {
				dwb[j] = dp * float64(val.b[j])
			} else {
				dwb[j] = 0
			}
		}
	}
	dla := e.w.buf(0, k*size)
	dlb := e.w.buf(1, k*size)
	softmaxBackward64(dla, n.wa, n.dwa, k, size)
	softmaxBackward64(dlb, n.wb, n.dwb, k, size)
	// The nets run side by side, each in its own scratch; their input
	// gradients (both halves of every input) are added after both.
	side := func(sc *scratch[T], net []layer, act *mlp[T], dl, drop []T, pm prod) {
		if n.dropped {
			for i := range dl {
				dl[i] *= drop[i]
			}
		}
		m.mlpBackward(net, act, k*rows, pm, dl, sc.buf(0, k*rows*2*d), sc.buf(1, k*rows*2*d), sc.buf(2, k*rows*2*d), sc.sumOf(m))
	}
	sa, sb := &e.w.sides[0], &e.w.sides[1]
	m.sideBySide(0, k*rows,
		func(pm prod) { side(sa, m.unionA, &n.a, dla, n.dropA, pm) },
		func(pm prod) { side(sb, m.unionB, &n.b, dlb, n.dropB, pm) })
	addStacked(e, n.in, sa.bufs[0], sb.bufs[0])
}

// softmaxBackward64 is softmaxInputsBackward with the weights' gradient dw
// in float64, rounded once into dl.
func softmaxBackward64[T kernel.Float](dl, w []T, dw []float64, k, n int) {
	for j := 0; j < n; j++ {
		var s float64
		for i := 0; i < k; i++ {
			s += float64(w[i*n+j]) * dw[i*n+j]
		}
		for i := 0; i < k; i++ {
			dl[i*n+j] = T(float64(w[i*n+j]) * (dw[i*n+j] - s))
		}
	}
}
