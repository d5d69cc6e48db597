package kernel

import (
	"fmt"
	"testing"
)

// TestTailsAtAllocationEnd runs the kernels whose last vector is shorter
// than a register on slices that end their allocations, on every level,
// and checks that they give the bits of the same call on slices with room
// to spare. Under go test -race (checkptr; .ci/run runs it so) a tail
// that reaches its elements through a pointer to a whole vector's array,
// as archsimd's SlicePart loads and stores do, fails here
// (golang/go#80856).
func TestTailsAtAllocationEnd(t *testing.T) {
	src, srcB := featureInputs(64)
	// exact copies s[:n] into an allocation of n elements, spare a copy
	// into one with 16 more.
	exact := func(s []float32, n int) []float32 { return append(make([]float32, 0, n), s[:n]...) }
	spare := func(s []float32, n int) []float32 { return append(make([]float32, 0, n+16), s[:n]...) }
	eachLevel(t, func(t *testing.T) {
		for _, n := range []int{1, 7, 9, 17, 33, 40} {
			f1, f2 := exact(src, n), exact(srcB, n)
			s1, s2 := spare(src, n), spare(srcB, n)
			got := GammaFeatures(f1, f2, exact(src, n), exact(srcB, n), featLo, featHi)
			want := GammaFeatures(s1, s2, spare(src, n), spare(srcB, n), featLo, featHi)
			equalBits(t, fmt.Sprintf("GammaFeatures f1, n=%d", n), f1, s1)
			equalBits(t, fmt.Sprintf("GammaFeatures f2, n=%d", n), f2, s2)
			if !sameBits(got, want) {
				t.Errorf("GammaFeatures, n=%d: sum %g, with room to spare %g", n, got, want)
			}
			GammaFeaturesGrad(f1, f2, exact(src, n), exact(srcB, n), 0.5, featLo, featHi)
			GammaFeaturesGrad(s1, s2, spare(src, n), spare(srcB, n), 0.5, featLo, featHi)
			equalBits(t, fmt.Sprintf("GammaFeaturesGrad g1, n=%d", n), f1, s1)
			equalBits(t, fmt.Sprintf("GammaFeaturesGrad g2, n=%d", n), f2, s2)
			x, xs := make([]float64, n), make([]float64, n, n+8)
			for i := range x {
				x[i] = float64(src[i]) + 2
				xs[i] = x[i]
			}
			for _, f := range []struct {
				name string
				f    func(dst, x []float64)
			}{{"Lgamma", Lgamma[float64]}, {"Digamma", Digamma[float64]}, {"Trigamma", Trigamma[float64]}} {
				d, ds := make([]float64, n), make([]float64, n, n+8)
				f.f(d, x)
				f.f(ds, xs)
				equalBits(t, fmt.Sprintf("%s[float64], n=%d", f.name, n), d, ds)
			}
		}
	})
}
