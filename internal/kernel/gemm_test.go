package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

type gemmCase struct {
	ta, tb      bool
	m, n, k     int
	pad         int // extra columns in every stored row
	alpha, beta float32
	nanC        bool // C starts as NaN (only with beta = 0)
}

func gemmCases() []gemmCase {
	var cs []gemmCase
	shapes := [][3]int{
		{1, 1, 1}, {4, 32, 8}, {3, 5, 7}, {5, 17, 1}, {17, 33, 31}, {33, 31, 64},
		{8, 300, 40}, {300, 7, 19}, {67, 100, 257}, {130, 270, 600}, {1, 520, 33}, {260, 3, 70},
		{600, 40, 300},  // few columns: the jobs split the rows
		{70, 1100, 300}, // several column blocks (gemmNC), k blocks and edges
		{40, 70, 1100},  // three k blocks read as rows, five transposed
		{67, 400, 257},  // a last panel of half the AVX-512 kernel's width
	}
	for i, s := range shapes {
		for _, tr := range [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}} {
			c := gemmCase{ta: tr[0], tb: tr[1], m: s[0], n: s[1], k: s[2], pad: i % 3 * 5, alpha: 1, beta: 0}
			switch i % 4 {
			case 1:
				c.alpha, c.beta = 0.5, 1
			case 2:
				c.alpha, c.beta = -1.5, 0.25
			case 3:
				c.nanC = true
			}
			cs = append(cs, c)
		}
	}
	cs = append(cs,
		gemmCase{m: 5, n: 6, k: 0, alpha: 1, beta: 2},
		gemmCase{m: 5, n: 6, k: 3, alpha: 0, beta: 0, nanC: true},
		gemmCase{m: 0, n: 6, k: 3, alpha: 1},
		gemmCase{ta: true, tb: true, m: 9, n: 40, k: 5, alpha: 0, beta: 3},
	)
	return cs
}

func (c gemmCase) String() string {
	t := func(b bool) string {
		if b {
			return "T"
		}
		return "N"
	}
	return fmt.Sprintf("%s%s_%dx%dx%d_pad%d_a%g_b%g_nan%v", t(c.ta), t(c.tb), c.m, c.n, c.k, c.pad, c.alpha, c.beta, c.nanC)
}

// operands makes A, B, C with their strides for case c.
func (c gemmCase) operands(r *rand.Rand) (a []float32, lda int, b []float32, ldb int, cm []float32, ldc int) {
	ar, ac := c.m, c.k
	if c.ta {
		ar, ac = ac, ar
	}
	br, bc := c.k, c.n
	if c.tb {
		br, bc = bc, br
	}
	lda, ldb, ldc = ac+c.pad, bc+c.pad, c.n+c.pad
	a = randSlice(r, max(ar*lda, 1))
	b = randSlice(r, max(br*ldb, 1))
	cm = randSlice(r, max(c.m*ldc, 1))
	if c.nanC {
		for i := range cm {
			cm[i] = float32(math.NaN())
		}
	}
	return
}

// TestGemm checks every level against the reference evaluated in float64,
// within the error bound of a k-term float32 sum; the padding columns of C
// must stay untouched.
func TestGemm(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		for i, tc := range gemmCases() {
			t.Run(tc.String(), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(i), 1))
				a, lda, b, ldb, c, ldc := tc.operands(r)
				c0 := slices.Clone(c)
				Gemm(tc.ta, tc.tb, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, c, ldc)

				if err := checkGemmCase(tc, a, lda, b, ldb, c0, c, ldc); err != nil {
					t.Fatal(err)
				}
			})
		}
	})
}

// checkGemmCase compares the result c of case tc (C was c0) with the
// reference evaluated in float64, within the error bound of a k-term
// float32 sum; the padding columns of C must be untouched.
func checkGemmCase(tc gemmCase, a []float32, lda int, b []float32, ldb int, c0, c []float32, ldc int) error {
	a64, b64 := to64(a), to64(b)
	abs := func(s []float64) []float64 {
		o := make([]float64, len(s))
		for i, v := range s {
			o[i] = math.Abs(v)
		}
		return o
	}
	want, bound := to64(c0), make([]float64, len(c0))
	gemmRef(tc.ta, tc.tb, tc.m, tc.n, tc.k, float64(tc.alpha), a64, lda, b64, ldb, float64(tc.beta), want, ldc)
	gemmRef(tc.ta, tc.tb, tc.m, tc.n, tc.k, math.Abs(float64(tc.alpha)), abs(a64), lda, abs(b64), ldb, 0, bound, ldc)
	eps := float64(tc.k+3) * 0x1p-24
	for i := range c {
		row, col := i/ldc, i%ldc
		if row >= tc.m || col >= tc.n {
			if !sameBits(c[i], c0[i]) {
				return fmt.Errorf("c[%d] outside the %d×%d result changed: %g → %g", i, tc.m, tc.n, c0[i], c[i])
			}
			continue
		}
		scaled := 0.0
		if tc.beta != 0 {
			scaled = math.Abs(float64(tc.beta) * float64(c0[i]))
		}
		tol := eps*(bound[i]+scaled) + 1e-30
		if !(math.Abs(float64(c[i])-want[i]) <= tol) {
			return fmt.Errorf("C[%d,%d] = %g, want %g ± %g", row, col, c[i], want[i], tol)
		}
	}
	return nil
}

// TestGemmDeterministic checks that the thread count does not change a bit
// of the result (edge tiles and job splits included).
func TestGemmDeterministic(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		for _, tc := range []gemmCase{
			{m: 300, n: 530, k: 300, alpha: 1, beta: 0.5},
			{ta: true, tb: true, m: 70, n: 900, k: 270, pad: 3, alpha: 2},
			{m: 301, n: 1030, k: 300, pad: 1, alpha: 1},            // A and B read in place
			{tb: true, m: 301, n: 1030, k: 300, alpha: 1},          // B packed
			{ta: true, m: 301, n: 1030, k: 300, alpha: 1, beta: 1}, // A packed
		} {
			r := rand.New(rand.NewPCG(7, 7))
			a, lda, b, ldb, c, ldc := tc.operands(r)
			var outs [][]float32
			for _, w := range []int{1, 2, 3} {
				got := slices.Clone(c)
				withWorkers(w, func() {
					Gemm(tc.ta, tc.tb, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, got, ldc)
				})
				outs = append(outs, got)
			}
			for w := 1; w < len(outs); w++ {
				for i := range outs[0] {
					if !sameBits(outs[0][i], outs[w][i]) {
						t.Fatalf("%v: element %d differs between 1 and %d workers: %g vs %g", tc, i, w+1, outs[0][i], outs[w][i])
					}
				}
			}
		}
	})
}

func TestKCStep(t *testing.T) {
	for _, tc := range []struct {
		k      int
		transA bool
		want   int
	}{
		{0, false, 1}, {1, false, 1}, {256, false, 256}, {512, false, 512}, {513, false, 257},
		{800, false, 400}, {1227, false, 409}, {1600, false, 400},
		{256, true, 256}, {257, true, 129}, {800, true, 200}, {1600, true, 229},
	} {
		got := kcStep(tc.k, tc.transA)
		if got != tc.want {
			t.Errorf("kcStep(%d, %v) = %d, want %d", tc.k, tc.transA, got, tc.want)
		}
		if tc.k > 0 && (got*((tc.k+got-1)/got) < tc.k || got > max(gemmKC, gemmKCRows)) {
			t.Errorf("kcStep(%d, %v) = %d does not cover k in blocks of at most %d", tc.k, tc.transA, got, gemmKCRows)
		}
	}
}

// TestGemmKBlocksBits checks what lets the k blocks be chosen freely:
// the bits of C do not depend on them. A product over k equals, to the
// bit, the product over its first k₁ steps followed by one adding the
// rest (beta = 1), for cuts that fall inside and between blocks.
func TestGemmKBlocksBits(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		for _, ta := range []bool{false, true} {
			tc := gemmCase{ta: ta, m: 37, n: 70, k: 1100, alpha: 1}
			r := rand.New(rand.NewPCG(9, 9))
			a, lda, b, ldb, c, ldc := tc.operands(r)
			whole := slices.Clone(c)
			Gemm(ta, false, tc.m, tc.n, tc.k, 1, a, lda, b, ldb, 0, whole, ldc)
			for _, k1 := range []int{1, 100, 256, 300, 700} {
				got := slices.Clone(c)
				a2 := a[k1:] // op(A)'s columns from k1
				if ta {
					a2 = a[k1*lda:]
				}
				Gemm(ta, false, tc.m, tc.n, k1, 1, a, lda, b, ldb, 0, got, ldc)
				Gemm(ta, false, tc.m, tc.n, tc.k-k1, 1, a2, lda, b[k1*ldb:], ldb, 1, got, ldc)
				for i := range got {
					if !sameBits(got[i], whole[i]) {
						t.Fatalf("transA %v, cut at %d: element %d is %g, in one product %g", ta, k1, i, got[i], whole[i])
					}
				}
			}
		}
	})
}

// TestGemmHalfTileBits: the AVX-512 kernel's half-width edge tiles, written
// to C in place, give the bits of the full kernel on a padded tile, for
// every operand layout, read in place or packed.
func TestGemmHalfTileBits(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		if cur.gemm.half == nil {
			t.Skip("no half-width kernel on this level")
		}
		for _, tc := range []gemmCase{
			{m: 67, n: 400, k: 300, alpha: 1},
			{tb: true, m: 40, n: 48, k: 70, pad: 3, alpha: 1, beta: 0.5},
			{ta: true, m: 33, n: 80, k: 600, alpha: 1, beta: 1},
		} {
			r := rand.New(rand.NewPCG(11, 11))
			a, lda, b, ldb, c, ldc := tc.operands(r)
			got, want := slices.Clone(c), slices.Clone(c)
			Gemm(tc.ta, tc.tb, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, got, ldc)
			packed := slices.Clone(c)
			p := PackB(tc.tb, tc.k, tc.n, b, ldb)
			if !tc.ta {
				GemmPacked(tc.m, tc.alpha, a, lda, p, tc.beta, packed, ldc)
			}
			half := cur.gemm.half
			cur.gemm.half = nil
			Gemm(tc.ta, tc.tb, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, want, ldc)
			cur.gemm.half = half
			for i := range got {
				if !sameBits(got[i], want[i]) {
					t.Fatalf("%v: element %d is %g with the half kernel, %g without", tc, i, got[i], want[i])
				}
				if !tc.ta && !sameBits(packed[i], want[i]) {
					t.Fatalf("%v packed: element %d is %g with the half kernel, %g without", tc, i, packed[i], want[i])
				}
			}
		}
	})
}

// TestGemmFloat64 checks that float64 is the reference itself.
func TestGemmFloat64(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	a, b := to64(randSlice(r, 6*5)), to64(randSlice(r, 5*4))
	got, want := make([]float64, 6*4), make([]float64, 6*4)
	Gemm(false, false, 6, 4, 5, 1, a, 5, b, 4, 0, got, 4)
	// Naive triple loop.
	for i := range 6 {
		for j := range 4 {
			var s float64
			for p := range 5 {
				s += a[i*5+p] * b[p*4+j]
			}
			want[i*4+j] = s
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("float64 Gemm = %v, want %v", got, want)
	}
}

func TestGemmPanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"short a", func() {
			Gemm(false, false, 2, 2, 2, 1, make([]float32, 3), 2, make([]float32, 4), 2, 0, make([]float32, 4), 2)
		}},
		{"small ldb", func() {
			Gemm(false, true, 2, 2, 3, 1, make([]float32, 6), 3, make([]float32, 6), 2, 0, make([]float32, 4), 2)
		}},
		{"negative", func() { Gemm[float64](false, false, -1, 2, 2, 1, nil, 2, nil, 2, 0, nil, 2) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			tc.f()
		})
	}
}

func to64(s []float32) []float64 {
	o := make([]float64, len(s))
	for i, v := range s {
		o[i] = float64(v)
	}
	return o
}

// TestMicroKernel checks each level's register kernel alone against a
// float64 sum: A as stored (rows strided), packed (k-major panels) and as
// stored Aᵀ (rows adjacent, k steps strided), from zero over NaN and added
// to C, k from 1 to past a k block. C's rows are wider than the tile:
// cells beside it must stay untouched.
func TestMicroKernel(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		kern := cur.gemm
		mr, nr := kern.mr, kern.nr
		r := rand.New(rand.NewPCG(3, 3))
		for _, k := range []int{1, 2, 7, 64, 300} {
			for layout, st := range [][2]int{{k + 3, 1}, {1, mr}, {1, mr + 5}} {
				for _, load := range []bool{false, true} {
					ar, ap := st[0], st[1]
					a := randSlice(r, (mr-1)*ar+(k-1)*ap+1)
					b := randSlice(r, k*nr)
					ldc := nr + 5
					c := randSlice(r, mr*ldc)
					if !load {
						for i := range mr {
							for j := range nr {
								c[i*ldc+j] = float32(math.NaN())
							}
						}
					}
					c0 := slices.Clone(c)
					kern.micro(k, a, ar, ap, b, nr, c, ldc, load)
					for i := range mr {
						for j := range ldc {
							got := c[i*ldc+j]
							if j >= nr {
								if !sameBits(got, c0[i*ldc+j]) {
									t.Fatalf("k %d layout %d load %v: c[%d][%d] beside the tile changed", k, layout, load, i, j)
								}
								continue
							}
							want, bound := 0.0, 0.0
							if load {
								want, bound = float64(c0[i*ldc+j]), math.Abs(float64(c0[i*ldc+j]))
							}
							for p := range k {
								x := float64(a[i*ar+p*ap]) * float64(b[p*nr+j])
								want, bound = want+x, bound+math.Abs(x)
							}
							if tol := float64(k+2) * 0x1p-24 * bound; !(math.Abs(float64(got)-want) <= tol) {
								t.Fatalf("k %d layout %d load %v: C[%d][%d] = %g, want %g ± %g", k, layout, load, i, j, got, want, tol)
							}
						}
					}
				}
			}
		}
	})
}
