package kernel

import (
	"fmt"
	"sync"
)

// Above appends to dst the index of every element of xs greater than t
// (NaN never is) in ascending order, and returns it. Ranking uses it to
// find the few entities that outscore an answer among all of them: the
// vector level compares sixteen scores an instruction and looks at the
// lanes only where one is above.
func Above(dst []int32, xs []float32, t float32) []int32 {
	if len(xs) > 1<<31-1 {
		panic("kernel: Above over more than 2³¹ elements")
	}
	if cur.above != nil {
		defer clearUpper()
		return cur.above(dst, xs, t)
	}
	return aboveGo(dst, xs, t)
}

func aboveGo(dst []int32, xs []float32, t float32) []int32 {
	for i, x := range xs {
		if x > t {
			dst = append(dst, int32(i))
		}
	}
	return dst
}

// CountAbove returns how many elements of xs are greater than t (NaN
// never is).
func CountAbove(xs []float32, t float32) int {
	if cur.countAbove != nil {
		defer clearUpper()
		return cur.countAbove(xs, t)
	}
	return countAboveGo(xs, t)
}

func countAboveGo(xs []float32, t float32) int {
	n := 0
	for _, x := range xs {
		if x > t {
			n++
		}
	}
	return n
}

// CountAboveEach sets counts[i] to CountAbove(xs, ts[i]) for every
// threshold. Where the CPU can compact vectors (AVX-512), it copies the
// elements above the lowest threshold once and counts over those: ranking
// a query's answers then reads the few entities that outscore its worst
// answer per answer, not all of them.
func CountAboveEach(counts []int, xs, ts []float32) {
	if len(counts) != len(ts) {
		panic(fmt.Sprintf("kernel: CountAboveEach: %d counts for %d thresholds", len(counts), len(ts)))
	}
	lo, numbers := float32(0), 0
	for _, t := range ts {
		if t == t { // NaN is never below: its count is 0
			if numbers == 0 || t < lo {
				lo = t
			}
			numbers++
		}
	}
	if cur.valuesAbove == nil || numbers < 3 || !compactionPays(xs, lo, numbers) {
		for i, t := range ts {
			counts[i] = CountAbove(xs, t)
		}
		return
	}
	bp := valuesPool.Get().(*[]float32)
	defer valuesPool.Put(bp)
	*bp = valuesAbove((*bp)[:0], xs, lo)
	for i, t := range ts {
		counts[i] = CountAbove(*bp, t) // every element above t is above lo
	}
}

// compactionPays estimates, from 128 evenly spaced elements of xs, the
// share f of them above lo, and says whether compacting them saves time
// over passes for n thresholds: the passes over what it keeps must save
// more than it costs, measured as 1.5 passes when it keeps 3 % and 4.5
// when it keeps 89 % (BenchmarkCountAboveEach: 8 answers among the top
// 3 % of the scores, 4.7× faster compacted; spread over all of them, 1.5×
// slower), so about 2 + 4f passes. It never pays for fewer than three.
func compactionPays(xs []float32, lo float32, n int) bool {
	step := max(1, len(xs)/128)
	above, seen := 0, 0
	for i := 0; i < len(xs); i += step {
		var b int
		if xs[i] > lo {
			b = 1
		}
		above += b
		seen++
	}
	f := float64(above) / float64(max(seen, 1))
	return float64(n)*(1-f) > 2+4*f
}

// valuesPool holds CountAboveEach's buffers of compacted values.
var valuesPool = sync.Pool{New: func() any { return new([]float32) }}

// valuesAbove appends to dst the elements of xs greater than t (NaN never
// is), in order, and returns it.
func valuesAbove(dst, xs []float32, t float32) []float32 {
	if cur.valuesAbove != nil {
		defer clearUpper()
		return cur.valuesAbove(dst, xs, t)
	}
	return valuesAboveGo(dst, xs, t)
}

func valuesAboveGo(dst, xs []float32, t float32) []float32 {
	for _, x := range xs {
		if x > t {
			dst = append(dst, x)
		}
	}
	return dst
}
