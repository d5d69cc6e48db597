//go:build goexperiment.simd

package kernel

import (
	"math"
	"simd/archsimd"
)

// AVX-512 exp and log, 16 float32 lanes, operation for operation the twins
// exp32 and log32 in elementwise.go. elementwise_avx2.go is this file with
// 8 lanes.

// bf16 broadcasts v through an integer register: a float constant would be
// materialised with a legacy SSE move (XORPS for 0, CVTSD2SS for NaN) in the
// middle of vector code, a microcode assist each on some Intel hosts.
func bf16(v float32) archsimd.Float32x16 {
	return archsimd.BroadcastInt32x16(int32(math.Float32bits(v))).AsFloat32x16()
}

// fbits16 broadcasts the float32 with the given bits (NaN and the
// infinities are no Go constants).
func fbits16(b int32) archsimd.Float32x16 { return archsimd.BroadcastInt32x16(b).AsFloat32x16() }

func bi16(v int32) archsimd.Int32x16 { return archsimd.BroadcastInt32x16(v) }

func exp32x16(x archsimd.Float32x16) archsimd.Float32x16 {
	xc := x.Max(bf16(expLo)).Min(bf16(expHi))
	n := xc.Mul(bf16(log2e32)).RoundToEvenScaled(0)
	r := n.MulAdd(bf16(-ln2Hi32), xc)
	r = n.MulAdd(bf16(-ln2Lo32), r)
	p := bf16(ep5).MulAdd(r, bf16(ep4)).MulAdd(r, bf16(ep3)).MulAdd(r, bf16(ep2)).MulAdd(r, bf16(ep1)).MulAdd(r, bf16(ep0))
	p = p.MulAdd(r.Mul(r), r).Add(bf16(1))
	ni := n.ConvertToInt32()
	n1 := ni.ShiftAllRight(1)
	n2 := ni.Sub(n1)
	s1 := n1.Add(bi16(127)).ShiftAllLeft(23).AsFloat32x16()
	s2 := n2.Add(bi16(127)).ShiftAllLeft(23).AsFloat32x16()
	y := p.Mul(s1).Mul(s2)
	return x.Merge(y, x.IsNaN())
}

func log32x16(x archsimd.Float32x16) archsimd.Float32x16 {
	one, zero := bf16(1), bf16(0)
	sub := x.Less(bf16(0x1p-126))
	xs := x.Mul(bf16(0x1p23)).Merge(x, sub)
	bits := xs.AsInt32x16()
	e := bits.ShiftAllRight(23).Sub(bi16(127)).ConvertToFloat32()
	e = e.Sub(bf16(23)).Merge(e, sub)
	m := bits.And(bi16(0x7FFFFF)).Or(bi16(0x3F800000)).AsFloat32x16()
	hi := m.Greater(bf16(sqrt2f32))
	m = m.Mul(bf16(0.5)).Merge(m, hi)
	e = e.Add(one).Merge(e, hi)
	f := m.Sub(one)
	z := f.Mul(f)
	p := bf16(lp8).MulAdd(f, bf16(lp7)).MulAdd(f, bf16(lp6)).MulAdd(f, bf16(lp5)).MulAdd(f, bf16(lp4)).MulAdd(f, bf16(lp3)).MulAdd(f, bf16(lp2)).MulAdd(f, bf16(lp1)).MulAdd(f, bf16(lp0))
	y := p.Mul(z).MulAdd(f, e.Mul(bf16(ln2Lo32)))
	y = z.MulAdd(bf16(-0.5), y)
	r := e.MulAdd(bf16(ln2Hi32), f.Add(y))
	r = r.Merge(fbits16(nan32Bits), x.Greater(zero))
	r = fbits16(ninf32Bits).Merge(r, x.Equal(zero))
	return x.Merge(r, x.Equal(fbits16(inf32Bits)))
}

func expAVX512(dst, x []float32) {
	dst = dst[:len(x)]
	i := 0
	for ; i+16 <= len(x); i += 16 {
		exp32x16(archsimd.LoadFloat32x16Slice(x[i:])).StoreSlice(dst[i:])
	}
	if i < len(x) {
		clearUpper()
		expTwin(dst[i:], x[i:])
	}
}

func logAVX512(dst, x []float32) {
	dst = dst[:len(x)]
	i := 0
	for ; i+16 <= len(x); i += 16 {
		log32x16(archsimd.LoadFloat32x16Slice(x[i:])).StoreSlice(dst[i:])
	}
	if i < len(x) {
		clearUpper()
		logTwin(dst[i:], x[i:])
	}
}
