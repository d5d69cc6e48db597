//go:build goexperiment.simd

package kernel

import (
	"math"
	"math/rand/v2"
	"simd/archsimd"
	"testing"
)

// TestLockstepSameBits checks that the two-vector log, ψ/entity-term and
// trigamma kernels give the one-vector kernels' bits, special values
// included.
func TestLockstepSameBits(t *testing.T) {
	if !archsimd.X86.AVX2() {
		t.Skip("no AVX2")
	}
	r := rand.New(rand.NewPCG(3, 4))
	special := []float32{0, -0, 1, -1, 0x1p-149, 0x1p-127, 0x1p-126, 7.999999, 8, 8.000001, 1e30,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 0.15, 1e9}
	vals := make([]float32, 0, 16*200)
	vals = append(vals, special...)
	for len(vals) < cap(vals) {
		vals = append(vals, float32(math.Exp(r.Float64()*30-12)))
	}
	same := func(a, b archsimd.Float32x16) bool {
		var x, y [16]float32
		a.Store(&x)
		b.Store(&y)
		return sameLanes(x[:], y[:])
	}
	same8 := func(a, b archsimd.Float32x8) bool {
		var x, y [8]float32
		a.Store(&x)
		b.Store(&y)
		return sameLanes(x[:], y[:])
	}
	for i := 0; i+16 <= len(vals); i += 8 {
		x0, x1 := archsimd.LoadFloat32x8Slice(vals[i:]), archsimd.LoadFloat32x8Slice(vals[i+8:])
		l0, l1 := log32x8x2(x0, x1)
		p0, e0, p1, e1 := psiEnt32x8x2(x0, x1)
		q0, f0 := psiEnt32x8(x0)
		q1, f1 := psiEnt32x8(x1)
		t0, a0, t1, a1 := trigammaAm32x8x2(x0, x1)
		u0, b0 := trigammaAm32x8(x0)
		u1, b1 := trigammaAm32x8(x1)
		if !same8(l0, log32x8(x0)) || !same8(l1, log32x8(x1)) || !same8(p0, q0) || !same8(e0, f0) || !same8(p1, q1) || !same8(e1, f1) ||
			!same8(t0, u0) || !same8(a0, b0) || !same8(t1, u1) || !same8(a1, b1) {
			t.Fatalf("8-lane lockstep kernels differ from the one-vector ones at %v", vals[i:i+16])
		}
	}
	if !archsimd.X86.AVX512() {
		return
	}
	for i := 0; i+32 <= len(vals); i += 16 {
		x0, x1 := archsimd.LoadFloat32x16Slice(vals[i:]), archsimd.LoadFloat32x16Slice(vals[i+16:])
		l0, l1 := log32x16x2(x0, x1)
		if !same(l0, log32x16(x0)) || !same(l1, log32x16(x1)) {
			t.Fatalf("log32x16x2 differs from log32x16 at %v", vals[i:i+32])
		}
		p0, e0, p1, e1 := psiEnt32x16x2(x0, x1)
		q0, f0 := psiEnt32x16(x0)
		q1, f1 := psiEnt32x16(x1)
		if !same(p0, q0) || !same(e0, f0) || !same(p1, q1) || !same(e1, f1) {
			t.Fatalf("psiEnt32x16x2 differs from psiEnt32x16 at %v", vals[i:i+32])
		}
		t0, a0, t1, a1 := trigammaAm32x16x2(x0, x1)
		u0, b0 := trigammaAm32x16(x0)
		u1, b1 := trigammaAm32x16(x1)
		if !same(t0, u0) || !same(a0, b0) || !same(t1, u1) || !same(a1, b1) {
			t.Fatalf("trigammaAm32x16x2 differs from trigammaAm32x16 at %v", vals[i:i+32])
		}
	}
}

// sameLanes reports whether x and y hold the same bits lane for lane.
func sameLanes(x, y []float32) bool {
	for i := range x {
		if !sameBits(x[i], y[i]) {
			return false
		}
	}
	return true
}
