package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSpecialFast64 checks the fast float64 maps at every level against the
// float64 references, at lengths around the vector width, and that they
// write nothing past dst's length.
func TestSpecialFast64(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	x := make([]float64, 5003)
	for i := range x {
		x[i] = math.Exp(r.Float64()*16 - 4) // 0.018 … 160,000
	}
	x[0], x[1], x[2] = 1, 2, 1.4616321449683622 // the roots of lgamma and digamma
	for _, f := range []struct {
		name string
		fast func(dst, x []float64)
		ref  func(dst, x []float64)
	}{
		{"Lgamma", LgammaFast, lgammaRef[float64]},
		{"Digamma", DigammaFast, digammaRef[float64]},
		{"Trigamma", TrigammaFast, trigammaRef[float64]},
	} {
		eachLevel(t, func(t *testing.T) {
			for _, n := range []int{1, 7, 8, 9, 1000, len(x)} {
				want := make([]float64, n)
				f.ref(want, x[:n])
				got := make([]float64, n+8)
				for i := n; i < len(got); i++ {
					got[i] = sentinel
				}
				f.fast(got[:n], x[:n])
				worst := 0.0
				for i := range n {
					err := math.Abs(got[i]-want[i]) / max(math.Abs(want[i]), 1e-3)
					worst = max(worst, err)
					if err > 1e-9 {
						t.Fatalf("%s n=%d: x=%g: %g, reference %g", f.name, n, x[i], got[i], want[i])
					}
				}
				if n == len(x) {
					t.Logf("%s: worst error %.2g", f.name, worst)
				}
				for i := n; i < len(got); i++ {
					if got[i] != sentinel {
						t.Fatalf("%s n=%d: wrote past the length at %d", f.name, n, i)
					}
				}
			}
		})
	}
}
