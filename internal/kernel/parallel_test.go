package kernel

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
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

// TestGo: Go runs every function, and wg waits for them all, whether the
// caller yields to them or not.
func TestGo(t *testing.T) {
	var wg sync.WaitGroup
	var ran atomic.Int64
	for range 100 {
		Go(&wg, func() { ran.Add(1) })
	}
	wg.Wait()
	if got := ran.Load(); got != 100 {
		t.Fatalf("ran %d functions, want 100", got)
	}
}

// BenchmarkGoStart times how long a goroutine started beside a caller that
// goes on working takes to begin (µs-to-start), after the cores have been
// idle for a moment as between two queries: wg.Go against Go.
func BenchmarkGoStart(b *testing.B) {
	for _, c := range []struct {
		name  string
		start func(wg *sync.WaitGroup, f func())
	}{
		{"wg.Go", func(wg *sync.WaitGroup, f func()) { wg.Go(f) }},
		{"Go", Go},
	} {
		b.Run(c.name, func(b *testing.B) {
			var total time.Duration
			for b.Loop() {
				time.Sleep(200 * time.Microsecond)
				var wg sync.WaitGroup
				var began atomic.Int64
				t0 := time.Now()
				c.start(&wg, func() { began.Store(int64(time.Since(t0))) })
				for began.Load() == 0 && time.Since(t0) < time.Millisecond {
				}
				wg.Wait()
				total += time.Duration(began.Load())
			}
			b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs-to-start")
		})
	}
}
