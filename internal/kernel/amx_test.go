package kernel

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// withAMXTwin runs f with amxTileGo as the tile kernel: the AMX driver
// (packs, blocks, edges, β) on any CPU.
func withAMXTwin(f func()) {
	prev := cur.amx
	cur.amx = amxTileGo
	defer func() { cur.amx = prev }()
	f()
}

// TestAMXDriver: the AMX path with the tile kernel's specification gives
// the bfloat16 definition's bits, for packed and per-call products, every
// transposition, edge blocks and β.
func TestAMXDriver(t *testing.T) {
	withAMXTwin(func() {
		for _, s := range []struct{ m, n, k int }{{1, 1, 1}, {32, 32, 32}, {33, 31, 3}, {40, 70, 65}, {64, 64, 800}} {
			r := rand.New(rand.NewPCG(uint64(s.m), uint64(s.n*s.k)))
			a, b := randSlice(r, s.m*s.k), randSlice(r, s.k*s.n)
			for _, transB := range []bool{false, true} {
				ldb := s.n
				if transB {
					ldb = s.k
				}
				p := PackBF16(transB, s.k, s.n, b, ldb)
				if p.kpad%amxWords != 0 {
					t.Fatalf("pack for AMX with %d rows a panel", p.kpad)
				}
				c := make([]float32, s.m*s.n)
				GemmPackedBF16(s.m, a, s.k, p, c, s.n)
				name := fmt.Sprintf("%dx%dx%d transB=%v", s.m, s.n, s.k, transB)
				equalBits(t, name, c, gemmBF16Ref(transB, s.m, s.n, s.k, a, s.k, b, ldb))

				// op(A) stored transposed, C added to.
				at := make([]float32, s.k*s.m)
				for i := range s.m {
					for q := range s.k {
						at[q*s.m+i] = a[i*s.k+q]
					}
				}
				c0 := randSlice(r, s.m*s.n)
				want := gemmBF16Ref(transB, s.m, s.n, s.k, a, s.k, b, ldb)
				for i := range want {
					want[i] += c0[i]
				}
				GemmBF16(true, transB, s.m, s.n, s.k, at, s.m, b, ldb, 1, c0, s.n)
				equalBits(t, name+" transA β=1", c0, want)
			}
		}
	})
}
