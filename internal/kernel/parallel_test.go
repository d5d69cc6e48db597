package kernel

import (
	"sync"
	"testing"
)

// countBody counts how often each index is visited.
type countBody struct{ hits []int32 }

func (b *countBody) do(lo, hi int) {
	for i := lo; i < hi; i++ {
		b.hits[i]++
	}
}

// TestParallelFor: every index is done exactly once, also when many
// goroutines share the helper team and offers go stale in its queue.
func TestParallelFor(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Go(func() {
			for it := range 200 {
				n, size, w := 1+(g*37+it*11)%500, 1+it%7, 1+(g+it)%4
				b := &countBody{hits: make([]int32, n)}
				parallelFor(n, size, w, b)
				for i, h := range b.hits {
					if h != 1 {
						t.Errorf("n=%d size=%d w=%d: index %d done %d times", n, size, w, i, h)
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

// TestParallelForLateHelper: a helper late for an earlier use of a pooled
// loop, running just before the loop's next use is published, must take
// no chunk of the new body (it would run twice, and the call would return
// before the chunk's other run ends).
func TestParallelForLateHelper(t *testing.T) {
	defer func() { testHookPublish = nil }()
	var first *loop
	testHookPublish = func(l *loop) { first = l }
	parallelFor(4, 1, 2, &countBody{hits: make([]int32, 4)})
	old := generations.Load() // the generation of that use
	b := &countBody{hits: make([]int32, 8)}
	reused := false
	testHookPublish = func(l *loop) {
		if l == first {
			reused = true
			l.work(old) // the late helper
		}
	}
	parallelFor(8, 1, 2, b)
	if !reused {
		t.Skip("the pool did not hand the same loop out again")
	}
	for i, h := range b.hits {
		if h != 1 {
			t.Errorf("index %d done %d times", i, h)
		}
	}
}
