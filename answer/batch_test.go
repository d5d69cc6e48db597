package answer

import (
	"context"
	"errors"
	"math"
	"slices"
	"sync"
	"testing"
	"time"
)

// recorder is a batch runner that records its batches and can be held.
type recorder struct {
	mu      sync.Mutex
	batches [][]int // item indices per batch
	started chan struct{}
	hold    chan struct{}
}

func (r *recorder) run(items []*item) {
	var ids []int
	for _, it := range items {
		ids = append(ids, it.index)
	}
	r.mu.Lock()
	r.batches = append(r.batches, ids)
	r.mu.Unlock()
	if r.started != nil {
		r.started <- struct{}{}
	}
	if r.hold != nil {
		<-r.hold
	}
}

func items(ctx context.Context, ids ...int) []*item {
	var out []*item
	for _, i := range ids {
		out = append(out, &item{ctx: ctx, index: i})
	}
	return out
}

// TestBatcher checks that queries arriving during a batch run together
// next, that a cancelled query is skipped, and that big submissions are
// split into batches of at most max items.
func TestBatcher(t *testing.T) {
	rec := &recorder{started: make(chan struct{}, 10), hold: make(chan struct{})}
	b := &batcher{run: rec.run, max: 3}
	bg := context.Background()

	var wg sync.WaitGroup
	submit := func(ctx context.Context, its []*item) chan error {
		errc := make(chan error, 1)
		wg.Go(func() { errc <- b.submit(ctx, its...) })
		return errc
	}
	first := submit(bg, items(bg, 0))
	<-rec.started // batch [0] is running and held

	ctx, cancel := context.WithCancel(bg)
	cancelled := submit(ctx, items(ctx, 1))
	queued := []chan error{submit(bg, items(bg, 2)), submit(bg, items(bg, 3, 4, 5, 6))}
	time.Sleep(20 * time.Millisecond) // let them queue
	cancel()
	if err := <-cancelled; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled submit: %v", err)
	}
	close(rec.hold) // release every batch
	for _, c := range append(queued, first) {
		if err := <-c; err != nil {
			t.Error(err)
		}
	}
	wg.Wait()

	// [0] ran alone; then 1 (cancelled) is skipped and the five queued
	// items run in two batches.
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var got []int
	for _, bt := range rec.batches {
		if len(bt) > 3 {
			t.Errorf("batch %v larger than max 3", bt)
		}
		got = append(got, bt...)
	}
	slices.Sort(got)
	if !slices.Equal(got, []int{0, 2, 3, 4, 5, 6}) || !slices.Equal(rec.batches[0], []int{0}) || len(rec.batches) != 3 {
		t.Errorf("batches %v", rec.batches)
	}
	// The loop goroutine exits once the queue is empty.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		b.mu.Lock()
		busy, queued := b.busy, len(b.queue)
		b.mu.Unlock()
		if !busy && queued == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("batcher not idle after the work: busy %v, queue %d", busy, queued)
		}
	}
}

func TestExpectedCount(t *testing.T) {
	for _, tc := range []struct {
		logits []float32
		shift  float64
		want   float64
	}{
		{nil, 0, 0},
		{[]float32{0}, 0, 0.5},
		{[]float32{1000, -1000, 0}, 0, 1.5},
		{[]float32{2, -3, 10, -60}, 0, 1/(1+math.Exp(-2)) + 1/(1+math.Exp(3)) + 1/(1+math.Exp(-10)) + 1/(1+math.Exp(60))},
		{[]float32{3, -1}, -3, 0.5 + 1/(1+math.Exp(4))},
	} {
		got := expectedCount(tc.logits, tc.shift)
		if math.Abs(got-tc.want) > 1e-6*max(1, tc.want) {
			t.Errorf("expectedCount(%v, %v) = %v, want %v", tc.logits, tc.shift, got, tc.want)
		}
	}
}

// TestBatcherLinger checks that after a batch of n items the loop waits for
// n items to gather, and that after a batch of one it does not wait.
func TestBatcherLinger(t *testing.T) {
	rec := &recorder{}
	b := &batcher{run: rec.run, max: 10, linger: time.Minute}
	bg := context.Background()
	if err := b.submit(bg, items(bg, 0, 1, 2)...); err != nil {
		t.Fatal(err)
	}
	// The loop is now waiting (up to a minute) for three items; they come
	// one by one, as three clients would.
	var wg sync.WaitGroup
	for i := 3; i < 6; i++ {
		time.Sleep(5 * time.Millisecond)
		wg.Go(func() {
			if err := b.submit(bg, items(bg, i)...); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	rec.mu.Lock()
	got := slices.Clone(rec.batches)
	rec.mu.Unlock()
	if len(got) != 2 || len(got[1]) != 3 {
		t.Fatalf("batches %v, want [0 1 2] then the three gathered", got)
	}

	// A lone client: batches of one never wait, however soon after its
	// answer the client asks again (before the loop has looked at the
	// queue, its next query is no late client).
	lone := &batcher{run: (&recorder{}).run, max: 10, linger: time.Minute}
	start := time.Now()
	for i := range 200 {
		if err := lone.submit(bg, items(bg, i)...); err != nil {
			t.Fatal(err)
		}
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("200 lone queries took %v", el)
	}
}

// TestBatcherLateClients checks that items queued while a batch runs count
// with the returning clients: after a batch of two during which a third
// item arrived, the loop waits for three, not two, so the late client and
// both returning ones run together.
func TestBatcherLateClients(t *testing.T) {
	rec := &recorder{started: make(chan struct{}, 10), hold: make(chan struct{}, 10)}
	b := &batcher{run: rec.run, max: 10, linger: 2 * time.Second} // long enough to gather, short enough to fail
	bg := context.Background()
	var wg sync.WaitGroup
	submit := func(ids ...int) {
		wg.Go(func() {
			if err := b.submit(bg, items(bg, ids...)...); err != nil {
				t.Error(err)
			}
		})
	}
	submit(0, 1)
	<-rec.started
	submit(2) // late: arrives while [0 1] runs
	for {
		b.mu.Lock()
		w := b.waiting
		b.mu.Unlock()
		if w == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	rec.hold <- struct{}{} // [0 1] ends; the loop gathers
	time.Sleep(5 * time.Millisecond)
	submit(3) // the first returning client: two items wait, three are due
	time.Sleep(5 * time.Millisecond)
	submit(4)
	<-rec.started
	for range 3 { // release whatever batches follow
		rec.hold <- struct{}{}
	}
	wg.Wait()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.batches) != 2 || len(rec.batches[1]) != 3 {
		t.Fatalf("batches %v, want [0 1] then the late item with both returning ones", rec.batches)
	}
}

// submit queues items and waits for them, as the engine's callers do.
func (b *batcher) submit(ctx context.Context, items ...*item) error {
	return b.enqueue(items...).wait(ctx)
}
