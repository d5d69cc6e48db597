//go:build goexperiment.simd

package kernel

import "simd/archsimd"

// The AVX2 twin of rows64_avx512.go: four lanes, line for line
// (archsimd's vector types have no width parameter); change both.

// The AVX2 levels of the baselines' row scores (rows64.go): four
// dimensions per vector, a row's lanes summed after clearUpper, the tail
// of a row (d not a multiple of 4) by the scalar loop.

// abs4 is |x| by clearing the sign bits.
func abs4(x archsimd.Float64x4, mask archsimd.Int64x4) archsimd.Float64x4 {
	return x.AsInt64x4().And(mask).AsFloat64x4()
}

// lanesum4 is the sum of a vector's lanes, taken on clean upper halves.
func lanesum4(v archsimd.Float64x4) float64 {
	var l [4]float64
	v.Store(&l)
	clearUpper()
	return (l[0] + l[1]) + (l[2] + l[3])
}

// lanesum4x2 is lanesum4 of two vectors.
func lanesum4x2(u, v archsimd.Float64x4) (float64, float64) {
	var a, b [4]float64
	u.Store(&a)
	v.Store(&b)
	clearUpper()
	return (a[0] + a[1]) + (a[2] + a[3]), (b[0] + b[1]) + (b[2] + b[3])
}

func absMask4() archsimd.Int64x4 { return archsimd.BroadcastInt64x4(0x7fffffffffffffff) }

func l1RowsAVX2(dst, tab, q []float64, gamma float64) {
	d := len(q)
	n4 := d &^ 3
	for e := range dst {
		row := tab[e*d : (e+1)*d]
		acc, m := bc4(0), absMask4()
		for i := 0; i < n4; i += 4 {
			acc = acc.Add(abs4(archsimd.LoadFloat64x4Slice(row[i:]).Sub(archsimd.LoadFloat64x4Slice(q[i:])), m))
		}
		s := lanesum4(acc)
		l1RowsGo(dst[e:e+1], row[n4:], q[n4:], 0)
		dst[e] = gamma - (s - dst[e])
	}
}

func boxRowsAVX2(dst, tab, c, o []float64, cen, gamma float64) {
	d := len(c)
	n4 := d &^ 3
	for e := range dst {
		row := tab[e*d : (e+1)*d]
		out, in, zero, m := bc4(0), bc4(0), bc4(0), absMask4()
		for i := 0; i < n4; i += 4 {
			delta := abs4(archsimd.LoadFloat64x4Slice(row[i:]).Sub(archsimd.LoadFloat64x4Slice(c[i:])), m)
			ov := archsimd.LoadFloat64x4Slice(o[i:])
			out = out.Add(delta.Sub(ov).Max(zero))
			in = in.Add(delta.Min(ov))
		}
		so, si := lanesum4x2(out, in)
		for i := n4; i < d; i++ {
			delta := row[i] - c[i]
			if delta < 0 {
				delta = -delta
			}
			so += max(delta-o[i], 0)
			si += min(delta, o[i])
		}
		dst[e] = gamma - so - cen*si
	}
}

func betaRowsAVX2(dst, psiA, psiB, psiS, ent, lg, a, b []float64, gamma float64) {
	d := len(lg)
	n4 := d &^ 3
	for e := range dst {
		off := e * d
		acc, m, zero := bc4(0), absMask4(), bc4(0)
		for i := 0; i < n4; i += 4 {
			// Fused: −a·ψA + x, −b·ψB + x, (a+b)·ψS + x.
			k := off + i
			av, bv := archsimd.LoadFloat64x4Slice(a[i:]), archsimd.LoadFloat64x4Slice(b[i:])
			x := archsimd.LoadFloat64x4Slice(lg[i:]).Add(archsimd.LoadFloat64x4Slice(ent[k:]))
			x = zero.Sub(av).MulAdd(archsimd.LoadFloat64x4Slice(psiA[k:]), x)
			x = zero.Sub(bv).MulAdd(archsimd.LoadFloat64x4Slice(psiB[k:]), x)
			x = av.Add(bv).MulAdd(archsimd.LoadFloat64x4Slice(psiS[k:]), x)
			acc = acc.Add(abs4(x, m))
		}
		s := lanesum4(acc)
		for i := n4; i < d; i++ {
			k := off + i
			v := lg[i] + ent[k] - a[i]*psiA[k] - b[i]*psiB[k] + (a[i]+b[i])*psiS[k]
			if v < 0 {
				v = -v
			}
			s += v
		}
		dst[e] = gamma - s
	}
}

func coneRowsAVX2(dst, sin, cos, sa, ca, s1, c1, s2, c2, base []float64, cen, mod, gamma float64) {
	d := len(sa)
	n4 := d &^ 3
	for e := range dst {
		se, ce := sin[e*d:(e+1)*d], cos[e*d:(e+1)*d]
		out, in, m := bc4(0), bc4(0), absMask4()
		for i := 0; i < n4; i += 4 {
			sv, cv := archsimd.LoadFloat64x4Slice(se[i:]), archsimd.LoadFloat64x4Slice(ce[i:])
			bv := archsimd.LoadFloat64x4Slice(base[i:])
			t := abs4(sv.Mul(archsimd.LoadFloat64x4Slice(ca[i:])).Sub(cv.Mul(archsimd.LoadFloat64x4Slice(sa[i:]))), m)
			d1 := abs4(sv.Mul(archsimd.LoadFloat64x4Slice(c1[i:])).Sub(cv.Mul(archsimd.LoadFloat64x4Slice(s1[i:]))), m)
			d2 := abs4(sv.Mul(archsimd.LoadFloat64x4Slice(c2[i:])).Sub(cv.Mul(archsimd.LoadFloat64x4Slice(s2[i:]))), m)
			// Outside the aperture unless t < base: only lanes t ≥ base add.
			out = out.Add(d1.Min(d2).Masked(t.GreaterEqual(bv)))
			in = in.Add(t.Min(bv))
		}
		so, si := lanesum4x2(out, in)
		if n4 < d {
			var tail [1]float64
			coneRowsGo(tail[:], se[n4:], ce[n4:], sa[n4:], ca[n4:], s1[n4:], c1[n4:], s2[n4:], c2[n4:], base[n4:], cen, 1, 0)
			// tail = −(out + cen·in) of the tail dimensions.
			dst[e] = gamma - (so+cen*si-tail[0])*mod
			continue
		}
		dst[e] = gamma - (so+cen*si)*mod
	}
}
