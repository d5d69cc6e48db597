package kernel

import (
	"fmt"
	"math"
)

// AdamParams are the scalars of one step of torch.optim.Adam (no weight
// decay, no amsgrad; a decoupled decay by Shrink) for one parameter
// tensor.
type AdamParams struct {
	LR, Beta1, Beta2, Eps float64
	Step                  int // the tensor's step count, from 1
	// ZeroGrad sets g to zero as it is read: the next step's zero_grad
	// done in this pass over the gradient instead of one of its own.
	ZeroGrad bool
	// Shrink, when not 0, multiplies p by Shrink (rounded to T) before the
	// update: a decoupled weight decay (AdamW's p·(1 − lr·λ)) in this pass
	// over p instead of one of its own, with the bits of Scale then Adam.
	Shrink float64
}

// Adam applies one step of torch.optim.Adam to the parameter p with
// gradient g and moments m, v (all of one length), in torch 1.13's order
// of operations, each rounded in T:
//
//	m = m·β₁ + (1−β₁)·g
//	v = v·β₂ + (1−β₂)·(g·g)
//	p = p·Shrink                          (when Shrink ≠ 0)
//	p -= lr/bc₁ · (m / (√v / √bc₂ + ε)),   bc = 1 − β^step
//
// with lr/bc₁ and √bc₂ taken in float64 and then rounded to T. float32
// runs in vectors split over goroutines; no operation is fused, so every
// level gives the bits of the scalar loop (built for GOAMD64 < v3, where
// Go fuses none either).
func Adam[T Float](p, g, m, v []T, h AdamParams) {
	AdamAll([]AdamTensor[T]{{P: p, G: g, M: m, V: v, AdamParams: h}})
}

// AdamTensor is one tensor of an AdamAll step: parameter, gradient and
// moments (of one length) and the step's scalars.
type AdamTensor[T Float] struct {
	P, G, M, V []T
	AdamParams
}

// AdamAll applies Adam to every tensor of ts (each as Adam would, to the
// bit) in one parallel pass: a model's tensors are many and most are
// small, and a hand-off to the helpers per tensor left one core idle for
// the helper's wake-up (~0.1 ms on this machine's virtual CPUs) each time.
func AdamAll[T Float](ts []AdamTensor[T]) {
	defer clearUpper()
	// Allocated per call (a few hundred bytes once per optimiser step).
	b := &adamBody[T]{ts: ts, k: make([]adamConsts[T], 0, len(ts))}
	n := 0
	for i := range ts {
		t := &ts[i]
		if len(t.G) != len(t.P) || len(t.M) != len(t.P) || len(t.V) != len(t.P) {
			panic(fmt.Sprintf("kernel.Adam: lengths %d, %d, %d, %d differ", len(t.P), len(t.G), len(t.M), len(t.V)))
		}
		b.k = append(b.k, adamScalars[T](t.AdamParams))
		for lo := 0; lo < len(t.P); lo += grainStream {
			b.chunks = append(b.chunks, adamChunk{t: i, lo: lo, hi: min(lo+grainStream, len(t.P))})
		}
		n += len(t.P)
	}
	if n <= grainStream {
		b.do(0, len(b.chunks))
		return
	}
	parallelFor(len(b.chunks), 1, workers(), b)
}

// adamChunk is a range of one tensor of an AdamAll step.
type adamChunk struct{ t, lo, hi int }

// adamBody is AdamAll's parallel body: chunks [lo, hi).
type adamBody[T Float] struct {
	ts     []AdamTensor[T]
	k      []adamConsts[T]
	chunks []adamChunk
}

func (b *adamBody[T]) do(lo, hi int) {
	for _, c := range b.chunks[lo:hi] {
		t, k := &b.ts[c.t], &b.k[c.t]
		p, g, m, v := t.P[c.lo:c.hi], t.G[c.lo:c.hi], t.M[c.lo:c.hi], t.V[c.lo:c.hi]
		if p32, ok := any(p).([]float32); ok {
			cur.adam(p32, any(g).([]float32), any(m).([]float32), any(v).([]float32), any(k).(*adamConsts[float32]))
			continue
		}
		if p64, ok := any(p).([]float64); ok && cur.adam64 != nil {
			cur.adam64(p64, any(g).([]float64), any(m).([]float64), any(v).([]float64), any(k).(*adamConsts[float64]))
			continue
		}
		adamRef(p, g, m, v, k)
	}
}

// adamConsts are the per-step scalars of Adam, rounded to T.
type adamConsts[T Float] struct {
	b1, c1, b2, c2, stepSize, bc2Sqrt, eps T
	shrink                                 T
	shrinks, zero                          bool // shrinks: shrink ≠ 0, decided outside the vector code
}

func adamScalars[T Float](h AdamParams) adamConsts[T] {
	bc1 := 1 - math.Pow(h.Beta1, float64(h.Step))
	bc2 := 1 - math.Pow(h.Beta2, float64(h.Step))
	return adamConsts[T]{
		b1: T(h.Beta1), c1: T(1 - h.Beta1),
		b2: T(h.Beta2), c2: T(1 - h.Beta2),
		stepSize: T(h.LR / bc1), bc2Sqrt: T(math.Sqrt(bc2)), eps: T(h.Eps),
		shrink: T(h.Shrink), shrinks: h.Shrink != 0, zero: h.ZeroGrad,
	}
}

// adamRef is the scalar loop: the float64 path, the pure-Go level, and the
// specification of the vector levels.
func adamRef[T Float](p, g, m, v []T, k *adamConsts[T]) {
	g, m, v = g[:len(p)], m[:len(p)], v[:len(p)]
	b1, c1, b2, c2, stepSize, bc2Sqrt, eps, shrink := k.b1, k.c1, k.b2, k.c2, k.stepSize, k.bc2Sqrt, k.eps, k.shrink
	for i, gi := range g {
		mi := m[i]*b1 + c1*gi
		vi := v[i]*b2 + c2*(gi*gi)
		m[i], v[i] = mi, vi
		denom := T(math.Sqrt(float64(vi)))/bc2Sqrt + eps
		pi := p[i]
		if k.shrinks {
			pi *= shrink
		}
		p[i] = pi - stepSize*(mi/denom)
	}
	if k.zero {
		clear(g)
	}
}
