package kernel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestAbove: every level finds exactly the pure-Go loop's indices, for
// lengths around the vector width, NaNs and infinities, and thresholds
// that no element, some elements and every element passes.
func TestAbove(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	eachLevel(t, func(t *testing.T) {
		for _, n := range []int{0, 1, 15, 16, 17, 31, 33, 100, 14505} {
			xs := randSlice(r, n)
			for i := range xs {
				switch r.IntN(20) {
				case 0:
					xs[i] = nan
				case 1:
					xs[i] = inf
				case 2:
					xs[i] = -inf
				}
			}
			for _, th := range []float32{-inf, -1, 0, 0.5, 3, inf, nan} {
				want := aboveGo(nil, xs, th)
				if c := CountAbove(xs, th); c != len(want) {
					t.Fatalf("n=%d t=%g: CountAbove %d, want %d", n, th, c, len(want))
				}
				got := Above([]int32{-7}, xs, th)
				if len(got) == 0 || got[0] != -7 || !slices.Equal(got[1:], want) {
					t.Fatalf("n=%d t=%g: %d indices, want the loop's %d (dst kept: %v)", n, th, len(got)-1, len(want), len(got) > 0 && got[0] == -7)
				}
				for _, i := range want {
					if !(xs[i] > th) {
						t.Fatalf("n=%d t=%g: index %d (%g) is not above", n, th, i, xs[i])
					}
				}
			}
		}
	})
}

func BenchmarkAbove(b *testing.B) {
	const n = 14505
	r := rand.New(rand.NewPCG(1, 1))
	xs := randSlice(r, n)
	dst := make([]int32, 0, n)
	benchLevels(b, func(b *testing.B) {
		// 3 % of the entities above, as for a trained model's lowest answer.
		th := float32(1.88)
		for b.Loop() {
			dst = Above(dst[:0], xs, th)
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gvalues/s")
	})
}
