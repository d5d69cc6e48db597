package kernel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestDropout checks every level against the reference bit for bit (NaN
// and infinities included: a dropped unit is 0 whatever it held), and the
// stream's state after it, so that a level can take over mid-stream.
func TestDropout(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		for _, n := range slices.Concat(helperSizes, []int{31, 32, 64, 95}) {
			for _, p := range []float64{0, 0.1, 0.5, 0.99} {
				r := rand.New(rand.NewPCG(uint64(n), 5))
				x := withNaN(randSlice(r, n))
				if n > 5 {
					x[5] = float32(math.Inf(-1))
				}
				got, want := slices.Clone(x), slices.Clone(x)
				sg, sw := uint64(n)*7, uint64(n)*7
				scale := Dropout(got, p, &sg)
				thr := uint16(p * 65536)
				dropoutRef(want, thr, float32(65536/float64(65536-int(thr))), &sw)
				equalBits(t, "Dropout", got, want)
				if sg != sw {
					t.Fatalf("n=%d p=%v: state %#x after, want %#x", n, p, sg, sw)
				}
				if want := float32(1 / (1 - p)); math.Abs(float64(scale-want)) > 1e-3*float64(want) {
					t.Fatalf("p=%v: scale %v, want about %v", p, scale, want)
				}
			}
		}
	})
}

// TestDropoutRate checks the mask's rate, that the kept units' scale keeps
// the expectation, and that a seed gives the same mask.
func TestDropoutRate(t *testing.T) {
	for _, p := range []float64{0.05, 0.1, 0.3, 0.5} {
		const n = 1 << 17
		x, y := make([]float64, n), make([]float32, n)
		for i := range x {
			x[i], y[i] = 1, 1
		}
		s1, s2 := uint64(7), uint64(7)
		scale := Dropout(x, p, &s1)
		Dropout(y, p, &s2)
		dropped, sum := 0, 0.0
		for i, v := range x {
			switch {
			case (v == 0) != (y[i] == 0):
				t.Fatalf("p=%v: unit %d differs between two draws from one seed", p, i)
			case v == 0:
				dropped++
			case v != scale:
				t.Fatalf("p=%v: kept unit %d is %v, want the scale %v", p, i, v, scale)
			}
			sum += v
		}
		if rate := float64(dropped) / n; math.Abs(rate-p) > 0.01 {
			t.Errorf("p=%v: dropped %.4f of the units", p, rate)
		}
		if mean := sum / n; math.Abs(mean-1) > 0.02 {
			t.Errorf("p=%v: mean after dropout %.4f, want 1", p, mean)
		}
	}
}
