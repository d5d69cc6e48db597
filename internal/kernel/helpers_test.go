package kernel

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gammae/gammae/internal/cputime"
)

// cpuTime is the process's CPU time, for the per-CPU-second rates.
var cpuTime = cputime.Process

// eachLevel runs f once per instruction-set level this build and CPU
// support, with the float32 kernels switched to it.
func eachLevel(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	for _, im := range impls {
		t.Run(im.level.String(), func(t *testing.T) {
			defer use(im.level)()
			f(t)
		})
	}
}

// withWorkers runs f with the kernels limited to w goroutines.
func withWorkers(w int, f func()) {
	prev := maxWorkers
	maxWorkers = w
	defer func() { maxWorkers = prev }()
	f()
}

func randSlice(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(r.NormFloat64())
	}
	return s
}

// ulps is the distance between a and b in float32 units in the last place;
// NaN == NaN and equal infinities are 0 apart.
func ulps(a, b float32) float64 {
	if a == b || (a != a && b != b) {
		return 0
	}
	if a != a || b != b || math.IsInf(float64(a), 0) || math.IsInf(float64(b), 0) {
		return math.Inf(1)
	}
	ia, ib := int64(int32(math.Float32bits(a))), int64(int32(math.Float32bits(b)))
	if ia < 0 {
		ia = math.MinInt32 - ia
	}
	if ib < 0 {
		ib = math.MinInt32 - ib
	}
	return math.Abs(float64(ia - ib))
}

func sameBits[T Float](a, b T) bool {
	if x, ok := any(a).(float32); ok {
		return math.Float32bits(x) == math.Float32bits(any(b).(float32)) || (a != a && b != b)
	}
	return math.Float64bits(float64(a)) == math.Float64bits(float64(b)) || (a != a && b != b)
}

// sameSlices reports whether a and b hold the same bits (sameBits) at
// every index.
func sameSlices(a, b []float64) bool {
	for i := range a {
		if !sameBits(a[i], b[i]) {
			return false
		}
	}
	return true
}
