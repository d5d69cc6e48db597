package serve

import (
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// trimmer returns to the operating system the memory a burst of requests
// left behind, once the engine has been idle for a while. Go's scavenger
// returns freed heap only slowly, so without it a server that answered a
// few large queries keeps their peak footprint for good.
type trimmer struct {
	after time.Duration // idle time before a trim; ≤ 0: never
	grown uint64        // heap growth since the last trim that is worth one
	free  func()        // debug.FreeOSMemory, replaced in tests
	heap  func() uint64 // bytes of heap held from the OS

	mu     sync.Mutex
	active int
	timer  *time.Timer
	base   uint64 // heap held after the last trim
}

func newTrimmer(after time.Duration) *trimmer {
	t := &trimmer{after: after, grown: 32 << 20, free: debug.FreeOSMemory, heap: heapHeld}
	t.base = t.heap()
	return t
}

// busy marks an engine call starting.
func (t *trimmer) busy() {
	t.mu.Lock()
	t.active++
	if t.timer != nil {
		t.timer.Stop()
	}
	t.mu.Unlock()
}

// done marks an engine call ending; the last one arms the trim.
func (t *trimmer) done() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.active--
	if t.active > 0 || t.after <= 0 {
		return
	}
	if t.timer == nil {
		t.timer = time.AfterFunc(t.after, t.fire)
	} else {
		t.timer.Reset(t.after)
	}
}

func (t *trimmer) fire() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.active > 0 {
		return
	}
	// A trim is a full collection: only worth it after growth, not after
	// every small query of a steady trickle.
	if h := t.heap(); h < t.base+t.grown {
		return
	}
	t.free()
	t.base = t.heap()
}

var heapSamples = []metrics.Sample{
	{Name: "/memory/classes/heap/objects:bytes"},
	{Name: "/memory/classes/heap/unused:bytes"},
	{Name: "/memory/classes/heap/free:bytes"},
}

// heapHeld is the heap memory the process holds from the OS (in use, or
// free but not yet returned).
func heapHeld() uint64 {
	s := make([]metrics.Sample, len(heapSamples))
	copy(s, heapSamples)
	metrics.Read(s)
	var n uint64
	for _, x := range s {
		if x.Value.Kind() == metrics.KindUint64 {
			n += x.Value.Uint64()
		}
	}
	return n
}
