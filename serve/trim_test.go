package serve

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestTrimmer: memory is returned once the engine has been idle for the
// trim delay after calls that grew the heap, not while a call runs and
// not after calls that did not grow it.
func TestTrimmer(t *testing.T) {
	const mb = 1 << 20
	for _, tc := range []struct {
		name  string
		grow  uint64 // heap growth during the calls
		calls int    // overlapping calls
		trims int32
	}{
		{"burst", 100 * mb, 3, 1},
		{"small queries", 1 * mb, 3, 0},
		{"one call", 40 * mb, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var heap atomic.Uint64
			heap.Store(200 * mb)
			var freed atomic.Int32
			tr := &trimmer{after: 20 * time.Millisecond, grown: 32 * mb, heap: heap.Load,
				free: func() { freed.Add(1); heap.Store(200 * mb) }}
			tr.base = tr.heap()
			for range tc.calls {
				tr.busy()
			}
			heap.Add(tc.grow)
			for range tc.calls - 1 {
				tr.done()
			}
			time.Sleep(60 * time.Millisecond)
			if n := freed.Load(); n != 0 {
				t.Fatalf("trimmed %d times while a call ran", n)
			}
			tr.done()
			deadline := time.Now().Add(2 * time.Second)
			for freed.Load() < tc.trims && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			time.Sleep(60 * time.Millisecond)
			if n := freed.Load(); n != tc.trims {
				t.Errorf("trimmed %d times, want %d", n, tc.trims)
			}
		})
	}
}

func TestHeapHeld(t *testing.T) {
	if heapHeld() == 0 {
		t.Error("heapHeld reads 0 bytes")
	}
}
