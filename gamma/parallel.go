package gamma

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// parallelFor runs body over [0, n) on up to GOMAXPROCS goroutines (the
// caller's and at most maxParts − 1 more), each taking chunks of at least
// grain elements in turn until none is left, and waits. body gets its
// goroutine's index, part, for per-part scratch, and is called once per
// chunk; the result must not depend on the split. Chunks are taken as the
// goroutines come for them rather than split evenly up front: on a shared
// machine one core is often slower than the other, and with even halves
// the faster one waited (traced: one core idle for ~2 % of a training
// iteration in these loops).
func parallelFor(n, grain int, body func(part, lo, hi int)) {
	grain = max(grain, 1)
	parts := min(runtime.GOMAXPROCS(0), maxParts, n/grain)
	if parts <= 1 {
		body(0, 0, n)
		return
	}
	size := max(grain, (n+chunksPerPart*parts-1)/(chunksPerPart*parts))
	var next atomic.Int64
	work := func(part int) {
		for {
			lo := int(next.Add(int64(size))) - size
			if lo >= n {
				return
			}
			body(part, lo, min(lo+size, n))
		}
	}
	var wg sync.WaitGroup
	for p := 1; p < parts; p++ {
		wg.Go(func() { work(p) })
	}
	work(0)
	wg.Wait()
}

// chunksPerPart is how many chunks parallelFor makes per goroutine: the
// faster goroutine's wait at the end is at most one chunk.
const chunksPerPart = 16

// maxParts bounds the per-part scratch a workspace keeps.
const maxParts = 8

// parts returns per-part scratch buffers of n elements each.
func parts[T any](bufs *[maxParts][]T, n int) *[maxParts][]T {
	for i := range bufs {
		bufs[i] = grow(bufs[i], n)
	}
	return bufs
}

// eachHalf runs f for the α half (beta false) and the β half of the values
// of a pass concurrently, when there are two cores and n (the elements
// each half touches) pays for a goroutine; f must write only its half.
func eachHalf(n int, f func(beta bool)) {
	if n < halvesMin || runtime.GOMAXPROCS(0) < 2 {
		f(false)
		f(true)
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() { f(true) })
	f(false)
	wg.Wait()
}

// halvesMin is the work below which eachHalf stays on one goroutine (a
// goroutine's hand-off costs about as much as adding a few thousand
// floats).
const halvesMin = 1 << 13
