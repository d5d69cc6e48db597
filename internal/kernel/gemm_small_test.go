package kernel

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// smallCases are the shapes of the small-m path: m up to 17 (17 takes the
// blocked path), odd n and k around the vector widths, strides past the
// columns, and every alpha/beta kind.
func smallCases() []gemmCase {
	var cs []gemmCase
	ab := [][2]float32{{1, 0}, {0.5, 1}, {-1.5, 0.25}, {1, 0}}
	i := 0
	for _, m := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 17} {
		for _, nk := range [][2]int{{1, 1}, {3, 17}, {37, 15}, {70, 33}, {33, 100}, {129, 16}} {
			for _, tr := range [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}} {
				c := gemmCase{ta: tr[0], tb: tr[1], m: m, n: nk[0], k: nk[1], pad: i % 3 * 3}
				c.alpha, c.beta = ab[i%4][0], ab[i%4][1]
				c.nanC = i%4 == 3
				cs = append(cs, c)
				i++
			}
		}
	}
	return cs
}

// gemmNoSmall runs Gemm with the small path switched off.
func gemmNoSmall(tc gemmCase, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	prev := gemmSmallM
	gemmSmallM = 0
	defer func() { gemmSmallM = prev }()
	Gemm(tc.ta, tc.tb, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, c, ldc)
}

// TestGemmSmall checks the small path against the float64 reference
// (checkGemmCase, shared with TestGemm), and where it promises the blocked
// path's bits (B stored k×n, or the pure-Go level) against the blocked path.
func TestGemmSmall(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		for i, tc := range smallCases() {
			r := rand.New(rand.NewPCG(uint64(i), 5))
			a, lda, b, ldb, c, ldc := tc.operands(r)
			c0 := slices.Clone(c)
			Gemm(tc.ta, tc.tb, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, c, ldc)
			if err := checkGemmCase(tc, a, lda, b, ldb, c0, c, ldc); err != nil {
				t.Fatalf("%v: %v", tc, err)
			}
			if tc.tb && cur.level != levelGo {
				continue
			}
			blocked := slices.Clone(c0)
			gemmNoSmall(tc, a, lda, b, ldb, blocked, ldc)
			for e := range c {
				if !sameBits(c[e], blocked[e]) {
					t.Fatalf("%v: c[%d] = %g, blocked path %g", tc, e, c[e], blocked[e])
				}
			}
		}
	})
}

// TestGemmSmallInvariant: an element of C does not depend on the other
// rows computed with it (m) nor on the thread count, for Bᵀ too.
func TestGemmSmallInvariant(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		for _, tc := range []gemmCase{
			{tb: true, m: 8, n: 1001, k: 300, pad: 1, alpha: 1, beta: 0.5},
			{tb: true, m: 7, n: 203, k: 1600, alpha: 1},
			{tb: true, ta: true, m: 16, n: 77, k: 999, pad: 3, alpha: 1, beta: -1},
			{m: 7, n: 1001, k: 301, pad: 2, alpha: -2, beta: 1},
			{m: 13, n: 2100, k: 40, alpha: 1},
		} {
			r := rand.New(rand.NewPCG(9, 9))
			a, lda, b, ldb, c, ldc := tc.operands(r)
			whole := slices.Clone(c)
			withWorkers(1, func() {
				Gemm(tc.ta, tc.tb, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, whole, ldc)
			})
			for _, w := range []int{2, 3} {
				got := slices.Clone(c)
				withWorkers(w, func() {
					Gemm(tc.ta, tc.tb, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, got, ldc)
				})
				equalBits(t, fmt.Sprintf("%v with %d workers", tc, w), got, whole)
			}
			for i := range tc.m {
				row := slices.Clone(c[i*ldc : i*ldc+tc.n])
				ai := a[i*lda:] // row i of op(A)
				if tc.ta {
					ai = a[i:]
				}
				Gemm(tc.ta, tc.tb, 1, tc.n, tc.k, tc.alpha, ai, lda, b, ldb, tc.beta, row, tc.n)
				equalBits(t, fmt.Sprintf("%v row %d alone", tc, i), row, whole[i*ldc:i*ldc+tc.n])
			}
		}
	})
}
