package gamma

import (
	"runtime"
	"sync"
)

// parallelFor runs body over [0, n) split into up to GOMAXPROCS contiguous
// parts of at least grain elements, one goroutine each, and waits. body
// gets its part's index (for per-part scratch); the result must not depend
// on the split.
func parallelFor(n, grain int, body func(part, lo, hi int)) {
	parts := min(runtime.GOMAXPROCS(0), maxParts, n/max(grain, 1))
	if parts <= 1 {
		body(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	size := (n + parts - 1) / parts
	for p := 0; p < parts; p++ {
		lo, hi := p*size, min((p+1)*size, n)
		if lo >= hi {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			body(p, lo, hi)
		}()
	}
	wg.Wait()
}

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
