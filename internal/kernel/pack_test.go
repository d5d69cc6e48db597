package kernel

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPackB checks each level's B packer against packBGo, its
// specification, bit for bit: both layouts, blocks that start inside B
// (p0, j0), depths that are and are not multiples of the transposes'
// 8 and 16, and partial last panels (whose padding must be zero).
func TestPackB(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		kern := cur.gemm
		if kern.packB == nil {
			t.Skip("this level packs B with packBGo")
		}
		r := rand.New(rand.NewPCG(4, 4))
		for _, trans := range []bool{false, true} {
			for _, s := range []struct{ p0, kc, j0, nc int }{
				{0, 1, 0, 1}, {0, 8, 0, 16}, {3, 7, 5, 16}, {0, 16, 0, 32}, {1, 17, 2, 33},
				{0, 31, 0, 48}, {5, 64, 9, 95}, {0, 256, 0, 64}, {2, 9, 0, 15}, {0, 40, 3, 200},
			} {
				name := fmt.Sprintf("trans=%v/p0=%d_kc=%d_j0=%d_nc=%d", trans, s.p0, s.kc, s.j0, s.nc)
				rows, cols := s.p0+s.kc+3, s.j0+s.nc+2 // op(B)'s size, with a margin
				ldb := cols + 1
				if trans {
					ldb = rows + 1
				}
				b := randSlice(r, max(rows, cols)*ldb)
				size := (s.nc + kern.nr - 1) / kern.nr * kern.nr * s.kc
				want, got := randSlice(r, size), randSlice(r, size) // stale panels
				packBGo(want, b, ldb, trans, s.p0, s.kc, s.j0, s.nc, kern.nr)
				kern.packB(got, b, ldb, trans, s.p0, s.kc, s.j0, s.nc)
				if !slices.Equal(got, want) {
					for i := range want {
						if got[i] != want[i] {
							t.Errorf("%s: dst[%d] = %g, want %g", name, i, got[i], want[i])
							break
						}
					}
				}
			}
		}
	})
}
