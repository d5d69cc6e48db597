package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// DotF64 and AxpyF64 against the naive loops, every length around the
// vector widths, on every level.
func TestBLAS64(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 5))
	for _, im := range impls {
		restore := use(im.level)
		for n := range 40 {
			x, y := make([]float64, n), make([]float64, n)
			for i := range x {
				x[i], y[i] = r.NormFloat64(), r.NormFloat64()
			}
			want := 0.0
			for i := range x {
				want += x[i] * y[i]
			}
			if got := DotF64(x, y); math.Abs(got-want) > 1e-12*(1+math.Abs(want)) {
				t.Errorf("%s: DotF64 of %d = %v, want %v", im.level, n, got, want)
			}
			y2 := append([]float64(nil), y...)
			AxpyF64(0.7, x, y2)
			for i := range y2 {
				if w := y[i] + 0.7*x[i]; math.Abs(y2[i]-w) > 1e-15*(1+math.Abs(w)) {
					t.Errorf("%s: AxpyF64 of %d: [%d] = %v, want %v", im.level, n, i, y2[i], w)
					break
				}
			}
		}
		restore()
	}
}
