package kernel

import (
	"math/rand/v2"
	"testing"
)

// TestAllocs: no kernel allocates per call, split over goroutines or not
// (the bodies and the helper team are reused).
func TestAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items")
	}
	r := rand.New(rand.NewPCG(1, 1))
	small, small2 := randSlice(r, 800), randSlice(r, 800)
	big, big2 := randSlice(r, 70_000), randSlice(r, 70_000)
	for i := range big {
		big[i] = 1 + big[i]*big[i]
	}
	a, b, c := randSlice(r, 96*96), randSlice(r, 96*96), randSlice(r, 96*96)
	q, w, out := randSlice(r, 2*600), randSlice(r, 600*600), randSlice(r, 2*600)
	pb := PackBF16(true, 64, 100, b[:100*64], 64)
	cases := []struct {
		name string
		f    func()
	}{
		{"Axpy small", func() { Axpy(0.5, small, small2) }},
		{"Axpy split", func() { Axpy(0.5, big, big2) }},
		{"Scale split", func() { Scale(1, big2) }},
		{"Dot", func() { Dot(small, small2) }},
		{"ReLUBackward split", func() { ReLUBackward(big2, big) }},
		{"Digamma split", func() { Digamma(big2[:20_000], big[:20_000]) }},
		{"Exp small", func() { Exp(small2, small) }},
		{"AddBias split", func() { AddBias(big2, small[:100], 700, 100) }},
		{"AffineRows split", func() { AffineRows(big2, small[:100], 700, 100, -1, small[:700]) }},
		{"SumRows small", func() { SumRows(small2[:100], small, 8, 100) }},
		{"SumRows split", func() { SumRows(big2[:2000], big, 35, 2000) }},
		{"GammaFeatures", func() { GammaFeatures(small2[:400], out[:400], small[:400], small[400:], 0.15, 1e9) }},
		{"GammaFeaturesGrad", func() { GammaFeaturesGrad(small2[:400], out[:400], small[:400], small[400:], 1, 0.15, 1e9) }},
		{"GemmPackedBF16 edge", func() { GemmPackedBF16(3, out[:3*64], 64, pb, c[:3*100], 100) }},
		{"GemmPackedBF16 full", func() { GemmPackedBF16(16, a[:16*64], 64, pb, c[:16*100], 100) }},
		{"Gemm blocked", func() { Gemm(false, true, 96, 96, 96, 1, a, 96, b, 96, 0, c, 96) }},
		{"Gemm small NT", func() { Gemm(false, true, 2, 600, 600, 1, q, 600, w, 600, 0, out, 600) }},
		{"Gemm small NN", func() { Gemm(false, false, 2, 600, 600, 1, q, 600, w, 600, 1, out, 600) }},
	}
	eachLevel(t, func(t *testing.T) {
		for _, workers := range []int{1, 2} {
			withWorkers(workers, func() {
				for _, c := range cases {
					// A garbage collection empties the pools once: retry.
					n := testing.AllocsPerRun(50, c.f)
					for try := 0; n != 0 && try < 2; try++ {
						n = testing.AllocsPerRun(50, c.f)
					}
					if n != 0 {
						t.Errorf("%s with %d workers: %v allocations per call", c.name, workers, n)
					}
				}
			})
		}
	})
}
