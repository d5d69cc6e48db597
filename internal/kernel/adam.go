package kernel

import (
	"fmt"
	"math"
)

// AdamParams are the scalars of one step of torch.optim.Adam (no weight
// decay, no amsgrad) for one parameter tensor.
type AdamParams struct {
	LR, Beta1, Beta2, Eps float64
	Step                  int // the tensor's step count, from 1
	// ZeroGrad sets g to zero as it is read: the next step's zero_grad
	// done in this pass over the gradient instead of one of its own.
	ZeroGrad bool
}

// Adam applies one step of torch.optim.Adam to the parameter p with
// gradient g and moments m, v (all of one length), in torch 1.13's order
// of operations, each rounded in T:
//
//	m = m·β₁ + (1−β₁)·g
//	v = v·β₂ + (1−β₂)·(g·g)
//	p -= lr/bc₁ · (m / (√v / √bc₂ + ε)),   bc = 1 − β^step
//
// with lr/bc₁ and √bc₂ taken in float64 and then rounded to T. float32
// runs in vectors split over goroutines; no operation is fused, so every
// level gives the bits of the scalar loop (built for GOAMD64 < v3, where
// Go fuses none either).
func Adam[T Float](p, g, m, v []T, h AdamParams) {
	defer clearUpper()
	if len(g) != len(p) || len(m) != len(p) || len(v) != len(p) {
		panic(fmt.Sprintf("kernel.Adam: lengths %d, %d, %d, %d differ", len(p), len(g), len(m), len(v)))
	}
	k := adamScalars[T](h)
	if p32, ok := any(p).([]float32); ok {
		k32 := any(k).(adamConsts[float32])
		g32, m32, v32 := any(g).([]float32), any(m).([]float32), any(v).([]float32)
		if len(p) <= grainStream {
			cur.adam(p32, g32, m32, v32, &k32)
			return
		}
		b := adamBodies32.get()
		*b = adamBody[float32]{k: k32, p: p32, g: g32, m: m32, v: v32}
		parallelRange(len(p), grainStream, b)
		adamBodies32.put(b)
		return
	}
	p64, ok := any(p).([]float64)
	if !ok || len(p) <= grainStream {
		adamRef(p, g, m, v, &k)
		return
	}
	k64 := any(k).(adamConsts[float64])
	b := adamBodies64.get()
	*b = adamBody[float64]{k: k64, p: p64, g: any(g).([]float64), m: any(m).([]float64), v: any(v).([]float64)}
	parallelRange(len(p), grainStream, b)
	adamBodies64.put(b)
}

// adamConsts are the per-step scalars of Adam, rounded to T.
type adamConsts[T Float] struct {
	b1, c1, b2, c2, stepSize, bc2Sqrt, eps T
	zero                                   bool
}

func adamScalars[T Float](h AdamParams) adamConsts[T] {
	bc1 := 1 - math.Pow(h.Beta1, float64(h.Step))
	bc2 := 1 - math.Pow(h.Beta2, float64(h.Step))
	return adamConsts[T]{
		b1: T(h.Beta1), c1: T(1 - h.Beta1),
		b2: T(h.Beta2), c2: T(1 - h.Beta2),
		stepSize: T(h.LR / bc1), bc2Sqrt: T(math.Sqrt(bc2)), eps: T(h.Eps),
		zero: h.ZeroGrad,
	}
}

// adamRef is the scalar loop: the float64 path, the pure-Go level, and the
// specification of the vector levels.
func adamRef[T Float](p, g, m, v []T, k *adamConsts[T]) {
	g, m, v = g[:len(p)], m[:len(p)], v[:len(p)]
	b1, c1, b2, c2, stepSize, bc2Sqrt, eps := k.b1, k.c1, k.b2, k.c2, k.stepSize, k.bc2Sqrt, k.eps
	for i, gi := range g {
		mi := m[i]*b1 + c1*gi
		vi := v[i]*b2 + c2*(gi*gi)
		m[i], v[i] = mi, vi
		denom := T(math.Sqrt(float64(vi)))/bc2Sqrt + eps
		p[i] -= stepSize * (mi / denom)
	}
	if k.zero {
		clear(g)
	}
}

// adamBody is Adam's parallel body.
type adamBody[T Float] struct {
	k          adamConsts[T]
	p, g, m, v []T
}

func (b *adamBody[T]) do(lo, hi int) {
	p, g, m, v := b.p[lo:hi], b.g[lo:hi], b.m[lo:hi], b.v[lo:hi]
	if p32, ok := any(p).([]float32); ok {
		k := any(b.k).(adamConsts[float32])
		cur.adam(p32, any(g).([]float32), any(m).([]float32), any(v).([]float32), &k)
		return
	}
	adamRef(p, g, m, v, &b.k)
}

var (
	adamBodies32 pool[adamBody[float32]]
	adamBodies64 pool[adamBody[float64]]
)
