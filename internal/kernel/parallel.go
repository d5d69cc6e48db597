package kernel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// maxWorkers caps the goroutines a kernel uses; 0 means GOMAXPROCS. Tests
// change it to show results do not depend on the thread count.
var maxWorkers = 0

func workers() int {
	if maxWorkers > 0 {
		return maxWorkers
	}
	return runtime.GOMAXPROCS(0)
}

// A body is the work of a parallel call: do(lo, hi) handles [lo, hi).
// Kernels keep their bodies in pools (pool[T]), so that a parallel call
// allocates nothing.
type body interface{ do(lo, hi int) }

// parallelFor runs b.do on the chunks [j·size, (j+1)·size) of [0, n) (the
// last one shorter) on up to w goroutines: the caller and w−1 helpers of a
// team that lives for the whole process. Chunks are taken from a shared
// counter, so a core slowed by other work simply takes fewer. The caller
// never waits for a helper that has not started: if none is free it does
// every chunk itself. It returns when all chunks are done.
func parallelFor(n, size, w int, b body) { parallelRun(n, size, w, b, false) }

// parallelForNow is parallelFor for the products of a few query rows
// (answering queries: m ≤ 16): after offering the chunks the caller
// yields, so that a helper starts on them at once (Go says why). Measured
// with GAMMAE_BENCH_SIZE=400,800,2 go test ./answer -bench
// AnswerFB15k237, 5 alternations (medians): a bf16 3p query alone 1.05 →
// 0.95 ms, fp32 2.13 → 2.04 ms, a fp32 batch of eight 2.80 → 2.64 ms, a
// bf16 batch of eight level (1.45, 1.43 ms). Training's products, of
// hundreds of rows, keep parallelFor.
func parallelForNow(n, size, w int, b body) { parallelRun(n, size, w, b, true) }

func parallelRun(n, size, w int, b body, yield bool) {
	chunks := (n + size - 1) / size
	if w = min(w, chunks); w <= 1 || chunks >= chunkMask {
		for lo := 0; lo < n; lo += size {
			b.do(lo, min(lo+size, n))
		}
		return
	}
	l := loops.Get().(*loop)
	gen := generations.Add(1)
	// First move the state to the new generation with no chunk to take: a
	// helper late for an earlier use of l must not pass its generation
	// check against the new chunk count and take a chunk of the new body
	// (it would run twice and finish the call early). Its CAS fails from
	// here on.
	l.state.Store(gen<<chunkBits | chunkMask)
	l.b, l.n, l.size = b, n, size
	l.chunks.Store(int64(chunks))
	l.left.Store(int64(chunks))
	if testHookPublish != nil {
		testHookPublish(l)
	}
	l.state.Store(gen << chunkBits) // publishes the fields above
	startHelpers(w - 1)
	offered := false
	for range w - 1 {
		select {
		case work <- offer{l, gen}:
			offered = true
			continue
		default: // the queue is full: the helpers have enough to do
		}
		break
	}
	if offered && yield {
		runtime.Gosched()
	}
	l.work(gen)
	<-l.done
	l.b = nil
	loops.Put(l)
}

// testHookPublish, when set (tests only), runs in parallelFor just before
// a loop's new use is published.
var testHookPublish func(l *loop)

// loop is one parallelFor call as the helpers see it. The caller puts it
// back in its pool as soon as the call is done, while offers of it may
// still wait in the queue: each use has its own generation, and a helper
// takes chunks only from the generation it was offered. A late helper
// finds another generation, or no chunk left, and drops the offer.
type loop struct {
	state   atomic.Uint64 // generation << chunkBits | next chunk
	chunks  atomic.Int64
	left    atomic.Int64 // chunks not finished
	b       body
	n, size int
	done    chan struct{} // the finisher of the last chunk sends here
}

const (
	chunkBits = 24
	chunkMask = 1<<chunkBits - 1
)

var (
	loops       = sync.Pool{New: func() any { return &loop{done: make(chan struct{}, 1)} }}
	generations atomic.Uint64
)

// work does chunks of generation gen until none is left.
func (l *loop) work(gen uint64) {
	for {
		s := l.state.Load()
		j := int64(s & chunkMask)
		if s>>chunkBits != gen || j >= l.chunks.Load() {
			return
		}
		if !l.state.CompareAndSwap(s, s+1) {
			continue
		}
		lo := int(j) * l.size
		l.b.do(lo, min(lo+l.size, l.n))
		if l.left.Add(-1) == 0 {
			l.done <- struct{}{}
		}
	}
}

// The team: helpers wait on work; more start when a call asks for more.
type offer struct {
	l   *loop
	gen uint64
}

var (
	work    = make(chan offer, 64)
	helpers atomic.Int32
)

func startHelpers(k int) {
	for {
		h := helpers.Load()
		if int(h) >= k {
			return
		}
		if helpers.CompareAndSwap(h, h+1) {
			go func() {
				for o := range work {
					o.l.work(o.gen)
					clearUpper()
				}
			}()
		}
	}
}

// Go runs f on a new goroutine of wg, as wg.Go does, and yields the
// caller's core to it so that it starts at once, for a caller that goes on
// working beside it. Go's scheduler queues the new goroutine (or a helper
// woken by a channel send) next on the caller's core (runnext); another
// core steals such a goroutine only after backing off with usleep(3),
// which Linux's default 50 µs timer slack stretches, and the steal often
// fails while the caller runs. Yielding
// puts the caller on the global queue, which an idle core checks first,
// and the new goroutine runs where it was queued. BenchmarkGoStart (a
// caller working up to 1 ms; 2-core VM, Zen 5): wg.Go's goroutine began
// after 530–650 µs on average (three runs), often only when the caller
// stopped; Go's after 12–15 µs. For short splits answering queries (and
// parallelForNow): parallelFor does without, since yielding on every call
// made a training iteration ~4 % slower (its helpers are mostly awake
// there).
func Go(wg *sync.WaitGroup, f func()) {
	wg.Go(f)
	runtime.Gosched()
}

// parallelRange splits [0,n) into chunks of about grain elements (multiples
// of 64, so vector loops see aligned chunk starts) and runs b on them in
// parallel. Elementwise kernels use it: each element's result does not
// depend on the split.
func parallelRange(n, grain int, b body) {
	w := workers()
	if n <= grain || w <= 1 {
		b.do(0, n)
		return
	}
	chunks := min((n+grain-1)/grain, 4*w)
	size := (n + chunks - 1) / chunks
	size = (size + 63) &^ 63
	parallelFor(n, size, w, b)
}

// pool keeps the bodies of one kernel for reuse: get returns a zero T,
// put clears it (dropping its slices) and keeps it.
type pool[T any] struct{ p sync.Pool }

func (p *pool[T]) get() *T {
	if v := p.p.Get(); v != nil {
		return v.(*T)
	}
	return new(T)
}

func (p *pool[T]) put(t *T) {
	var zero T
	*t = zero
	p.p.Put(t)
}
