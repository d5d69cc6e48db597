package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestToBF16(t *testing.T) {
	for _, tc := range []struct {
		x    float32
		want uint16
	}{
		{1, 0x3f80},
		{-2, 0xc000},
		{float32(math.Inf(1)), 0x7f80},
		{float32(math.Copysign(0, -1)), 0x8000},
		{1 + 1.0/256, 0x3f80},            // a tie: to the even neighbour
		{1 + 3.0/256, 0x3f82},            // a tie: to the even neighbour, up
		{1 + 1.0/256 + 1.0/4096, 0x3f81}, // above the tie
		{math.MaxFloat32, 0x7f80},        // rounds to infinity
	} {
		if got := toBF16(tc.x); got != tc.want {
			t.Errorf("toBF16(%g) = %#04x, want %#04x", tc.x, got, tc.want)
		}
	}
	if h := toBF16(float32(math.NaN())); h&0x7f80 != 0x7f80 || h&0x7f == 0 {
		t.Errorf("toBF16(NaN) = %#04x, not a NaN", h)
	}
	if x := fromBF16(0x0001); x != 0 {
		t.Errorf("a denormal bfloat16 reads as %g, want 0", x)
	}
}

// equalBF16 is equalBits for bfloat16 products, whose definition
// (VDPBF16PS's order of adds) AMX tiles need not follow to the bit: with
// tiles in use, got must be within 2⁻¹⁶ of want relative to the larger of
// the two magnitudes and 1.
func equalBF16(t *testing.T, name string, got, want []float32) {
	t.Helper()
	if !HasAMX() {
		equalBits(t, name, got, want)
		return
	}
	for i := range want {
		if d := math.Abs(float64(got[i]) - float64(want[i])); !(d <= 0x1p-16*max(1, math.Abs(float64(want[i])), math.Abs(float64(got[i])))) {
			t.Fatalf("%s (AMX): element %d = %g, want %g", name, i, got[i], want[i])
		}
	}
}

// gemmBF16Ref is C = A·op(B) by VDPBF16PS's definition, element by
// element from the unpacked operands.
func gemmBF16Ref(transB bool, m, n, k int, a []float32, lda int, b []float32, ldb int) []float32 {
	c := make([]float32, m*n)
	bAt := func(p, j int) float32 {
		if p >= k {
			return 0
		}
		if transB {
			return b[j*ldb+p]
		}
		return b[p*ldb+j]
	}
	aAt := func(i, p int) float32 {
		if p >= k {
			return 0
		}
		return a[i*lda+p]
	}
	r := func(x float32) float32 { return fromBF16(toBF16(x)) }
	for i := range m {
		for j := range n {
			var acc float32
			for p := 0; p < k; p += 2 {
				acc = ftz(acc + r(aAt(i, p+1))*r(bAt(p+1, j)))
				acc = ftz(acc + r(aAt(i, p))*r(bAt(p, j)))
			}
			c[i*n+j] = acc
		}
	}
	return c
}

// TestGemmBF16: every level gives the definition's bits, on edge tiles
// and odd k; the result is the float64 product within bfloat16 rounding.
func TestGemmBF16(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		if HasAMX() {
			t.Log("AMX tiles")
		} else if HasBF16() {
			t.Log("bf16 micro-kernel: " + cur.bf16Name)
		} else {
			t.Log("no bf16 micro-kernel at this level: the pure-Go definition")
		}
		for _, s := range []struct{ m, n, k int }{{1, 1, 1}, {8, 32, 2}, {9, 33, 3}, {7, 31, 16}, {17, 100, 801}, {64, 64, 800}} {
			for _, transB := range []bool{false, true} {
				r := rand.New(rand.NewPCG(uint64(s.m), uint64(s.k)))
				a, b := randSlice(r, s.m*s.k), randSlice(r, s.k*s.n)
				ldb := s.n
				if transB {
					ldb = s.k
				}
				p := PackBF16(transB, s.k, s.n, b, ldb)
				c := make([]float32, s.m*s.n)
				for i := range c {
					c[i] = float32(math.NaN()) // overwritten, not added to
				}
				GemmPackedBF16(s.m, a, s.k, p, c, s.n)
				name := fmt.Sprintf("%dx%dx%d transB=%v", s.m, s.n, s.k, transB)
				equalBF16(t, name, c, gemmBF16Ref(transB, s.m, s.n, s.k, a, s.k, b, ldb))
				// Against float64: each operand is off by ≤ 2⁻⁸ relative.
				for i := range s.m {
					for j := range s.n {
						var exact, scale float64
						for q := range s.k {
							bq := float64(b[q*s.n+j])
							if transB {
								bq = float64(b[j*s.k+q])
							}
							exact += float64(a[i*s.k+q]) * bq
							scale += math.Abs(float64(a[i*s.k+q]) * bq)
						}
						if d := math.Abs(float64(c[i*s.n+j]) - exact); d > 1e-2*scale+1e-6 {
							t.Fatalf("%s: C[%d][%d] = %g, float64 %g (scale %g)", name, i, j, c[i*s.n+j], exact, scale)
						}
					}
				}
			}
		}
	})
}

// BenchmarkGemmBF16 scores a block of 512 queries against the FB15k-237
// entities at d = 400 (inner size 2d): the float32 blocked product and the
// bfloat16 one, on every level.
func BenchmarkGemmBF16(b *testing.B) {
	const m, n, k = 512, 14505, 800
	r := rand.New(rand.NewPCG(1, 1))
	a, bm, c := randSlice(r, m*k), randSlice(r, n*k), make([]float32, m*n)
	benchLevels(b, func(b *testing.B) {
		b.Run("fp32", func(b *testing.B) {
			c0 := cpuTime()
			for b.Loop() {
				Gemm(false, true, m, n, k, 1, a, k, bm, k, 0, c, n)
			}
			report(b, 2*float64(m*k*n)*float64(b.N)/1e9, cpuTime()-c0, "GFLOP")
		})
		bf16 := func(b *testing.B) {
			p := PackBF16(true, k, n, bm, k)
			c0 := cpuTime()
			for b.Loop() {
				GemmPackedBF16(m, a, k, p, c, n)
			}
			report(b, 2*float64(m*k*n)*float64(b.N)/1e9, cpuTime()-c0, "GFLOP")
		}
		b.Run("bf16", bf16) // on AMX tiles where the CPU has them
		if HasAMX() {
			b.Run("bf16-noamx", func(b *testing.B) {
				prev := cur.amx
				cur.amx = nil
				defer func() { cur.amx = prev }()
				bf16(b)
			})
		}
	})
}

// TestGemmBF16Both: GemmBF16, both operands packed per call, gives the
// definition's bits for every transposition, beta 0 (C overwritten), 1
// and ½ (C added to), serial or not, and the pool's reused packs do not
// leak one call's numbers into the next.
func TestGemmBF16Both(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		for _, s := range []struct{ m, n, k int }{{1, 1, 1}, {9, 33, 3}, {7, 31, 16}, {17, 100, 801}, {64, 40, 9}} {
			for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
				for _, beta := range []float32{0, 1, 0.5} {
					transA, transB := tr[0], tr[1]
					r := rand.New(rand.NewPCG(uint64(s.m*s.n), uint64(s.k)))
					a, b, c0 := randSlice(r, s.m*s.k), randSlice(r, s.k*s.n), randSlice(r, s.m*s.n)
					lda, ldb := s.k, s.n
					if transA {
						lda = s.m
					}
					if transB {
						ldb = s.k
					}
					// op(A) laid out plainly, for the reference.
					plain := make([]float32, s.m*s.k)
					for i := range s.m {
						for q := range s.k {
							if transA {
								plain[i*s.k+q] = a[q*lda+i]
							} else {
								plain[i*s.k+q] = a[i*lda+q]
							}
						}
					}
					want := gemmBF16Ref(transB, s.m, s.n, s.k, plain, s.k, b, ldb)
					for i := range want {
						if beta != 0 {
							want[i] += beta * c0[i]
						}
					}
					name := fmt.Sprintf("%dx%dx%d transA=%v transB=%v beta=%g", s.m, s.n, s.k, transA, transB, beta)
					for _, serial := range []bool{false, true} {
						c := slices.Clone(c0)
						if beta == 0 {
							for i := range c {
								c[i] = float32(math.NaN()) // overwritten, not added to
							}
						}
						if serial {
							GemmBF16Serial(transA, transB, s.m, s.n, s.k, a, lda, b, ldb, beta, c, s.n)
						} else {
							GemmBF16(transA, transB, s.m, s.n, s.k, a, lda, b, ldb, beta, c, s.n)
						}
						equalBF16(t, fmt.Sprintf("%s serial=%v", name, serial), c, want)
					}
				}
			}
		}
	})
}
