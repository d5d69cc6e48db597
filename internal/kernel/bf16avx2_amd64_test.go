//go:build goexperiment.simd

package kernel

import (
	"math/rand/v2"
	"simd/archsimd"
	"testing"
)

// TestMicroBF16AVX2Tiny: the AVX2 emulation of VDPBF16PS reads denormal
// bfloat16 inputs as zero and flushes denormal sums, as the definition
// does, and leaves the caller's float arithmetic (MXCSR) as it was: tiny
// products, some sums flushed and some not. (The AVX512-BF16 kernel is
// the instruction itself, checked against the definition on ordinary
// values by TestGemmBF16.)
func TestMicroBF16AVX2Tiny(t *testing.T) {
	if !archsimd.X86.AVX2() || !archsimd.X86.FMA() {
		t.Skip("no AVX2 and FMA on this CPU")
	}
	r := rand.New(rand.NewPCG(7, 7))
	// A's halves are denormal or among the smallest normals, B's
	// denormal or in [2⁻⁸, 2⁻⁴): every product is tiny.
	half := func(big bool) uint32 {
		sign := uint32(r.IntN(2)) << 15
		switch {
		case r.IntN(3) == 0:
			return sign | uint32(r.IntN(0x80))
		case big:
			return sign | uint32(0x3b80+r.IntN(0x200))
		default:
			return sign | uint32(0x80+r.IntN(0x500))
		}
	}
	const kp = 37
	a, b := make([]uint32, kp*bf16Rows), make([]uint32, kp*bf16Cols)
	for i := range a {
		a[i] = half(false) | half(false)<<16
	}
	for i := range b {
		b[i] = half(true) | half(true)<<16
	}
	got, want := make([]float32, bf16Rows*bf16Cols), make([]float32, bf16Rows*bf16Cols)
	microBF16AVX2(kp, a, b, got, bf16Cols)
	microBF16Go(kp, a, b, want, bf16Cols)
	equalBits(t, "AVX2 FMAs", got, want)
	var flushed int
	for _, w := range want {
		if w == 0 {
			flushed++
		}
	}
	if flushed == 0 || flushed == len(want) {
		t.Fatalf("%d of %d sums flushed: the test does not reach the denormal range", flushed, len(want))
	}
	// A denormal quotient survives: DAZ and FTZ are off again.
	if x := float32(0x1p-126) / float32(2+r.IntN(2)); x == 0 {
		t.Error("after the AVX2 micro-kernel a denormal quotient is 0: MXCSR left with FTZ")
	}
}
