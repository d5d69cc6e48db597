package answer

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gammae/gammae/exact"
	"github.com/gammae/gammae/gamma"
	"github.com/gammae/gammae/internal/kernel"
	"github.com/gammae/gammae/query"
	"github.com/gammae/gammae/serve"
)

// maxBatch is the most queries run in one batch. Embedding and scoring cost
// nearly the same for 1 or 64 rows (they stream the same weights and entity
// features from memory), but the score matrix grows by 58 KB per row on
// FB15k-237.
const maxBatch = 64

// linger bounds how long the batch loop waits for the clients of its last
// batch to come back (see batcher): about the time a loopback client takes
// to read an answer and send its next query, well under a batch's cost.
const linger = 3 * time.Millisecond

// item is one query on its way through a batch.
type item struct {
	ctx   context.Context
	q     query.Node
	k     int
	start time.Time
	index int // position in the caller's list

	// The parts of the answer that need no model, set by prepare. A caller
	// that waits for a batch prepares its items itself while the batch
	// runs (callerPrepares; see Engine.AnswerQuery): the batch then only
	// ranks, and the caller completes the answer.
	callerPrepares bool
	prepared       bool
	observed       exact.Set // answers entailed by the known graph
	exactErr       error
	text, explain  string // the query and its tree, with names
	structure      string

	// What the batch computes: the top k entities, their logits, and the
	// estimates.
	top       []int32
	topScores []float32
	entropy   float64
	estimate  *float64

	res *Result
	err error
}

// prepare runs the item's query on the known graph and formats it, once.
func (e *Engine) prepare(it *item) {
	if it.prepared {
		return
	}
	it.observed, it.exactErr = exact.Execute(e.kg.Test, it.q)
	it.text, it.explain, it.structure = e.resolver.Format(it.q), e.resolver.FormatTree(it.q), structureName(it.q)
	it.prepared = true
}

// batcher coalesces concurrent queries. A caller appends its items to the
// queue; if no batch is running it starts a goroutine that runs batches of
// the queued items until the queue is empty, then exits. A query arriving
// while the engine is idle thus runs at once, alone, and queries arriving
// during a batch wait for it and run together in the next one.
//
// Under steady concurrent load the clients of one batch come back together:
// had the loop run the first of them alone, the others would wait for that
// batch and then run in the next, twice the latency. So after a batch of n
// items the loop waits up to linger for n items to queue before it takes
// the next batch. After a batch of one item it never waits, so a lone client
// pays nothing.
type batcher struct {
	run    func([]*item)
	max    int
	linger time.Duration

	mu      sync.Mutex
	queue   []*pending
	busy    bool
	waiting int           // items queued and not yet taken
	arrived chan struct{} // a signal per submit, buffered 1
}

// pending is one caller's items and the signal that they are done.
type pending struct {
	items []*item
	left  int           // items not yet run
	done  chan struct{} // closed when left reaches 0
}

// enqueue queues items for the batch loop, starting it if it is idle;
// wait for them then.
func (b *batcher) enqueue(items ...*item) *pending {
	p := &pending{items: items, left: len(items), done: make(chan struct{})}
	if len(items) == 0 {
		close(p.done)
		return p
	}
	b.mu.Lock()
	b.queue = append(b.queue, p)
	b.waiting += len(items)
	if b.arrived == nil {
		b.arrived = make(chan struct{}, 1)
	}
	if !b.busy {
		b.busy = true
		go b.loop()
	}
	b.mu.Unlock()
	select {
	case b.arrived <- struct{}{}:
	default:
	}
	return p
}

// wait waits for p's items to have run, or for ctx to end: then the items
// are skipped if they have not started.
func (p *pending) wait(ctx context.Context) error {
	select {
	case <-p.done:
		return nil
	case <-ctx.Done():
		return ctx.Err() // the loop skips items whose context has ended
	}
}

// loop runs batches while the queue has items.
func (b *batcher) loop() {
	prev, late := 0, 0 // items in the last batch, and queued while it ran
	for {
		b.mu.Lock()
		// The items queued while the last batch ran are clients that
		// missed it. Waiting only for as many items as the last batch had
		// would start the next one as soon as the late ones and all but
		// one of the returning clients are in, leaving a new late client
		// behind every time (measured at 8 clients: 46 % of the batches
		// left one or two behind, and those queries waited a whole extra
		// batch). So wait for the returning clients and the late ones
		// together. The late ones are counted before the answers go out:
		// counted now, a returning client that asked again at once would
		// pass for a late one, and a lone client would wait for itself.
		if target := min(prev+late, b.max); target > 1 && b.linger > 0 && b.waiting < target {
			b.gather(target)
		}
		batch, finished := b.take()
		if len(batch) == 0 {
			b.busy = false
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()
		b.run(batch)
		b.mu.Lock()
		prev, late = len(batch), b.waiting
		b.mu.Unlock()
		for _, p := range finished {
			close(p.done)
		}
	}
}

// gather waits up to linger for n items to queue. b.mu is held, and
// released while waiting.
func (b *batcher) gather(n int) {
	deadline := time.Now().Add(b.linger)
	for b.waiting < n {
		wait := time.Until(deadline)
		if wait <= 0 {
			return
		}
		b.mu.Unlock()
		t := time.NewTimer(wait)
		select {
		case <-b.arrived:
		case <-t.C:
		}
		t.Stop()
		b.mu.Lock()
	}
}

// take removes up to max items from the front of the queue; finished are
// the callers whose last items are among them. b.mu is held.
func (b *batcher) take() (batch []*item, finished []*pending) {
	for len(b.queue) > 0 && len(batch) < b.max {
		p := b.queue[0]
		from := len(p.items) - p.left
		n := min(p.left, b.max-len(batch))
		b.waiting -= n
		for _, it := range p.items[from : from+n] {
			if it.ctx.Err() == nil {
				batch = append(batch, it)
			}
		}
		p.left -= n
		if p.left > 0 {
			break
		}
		finished = append(finished, p)
		b.queue[0] = nil
		b.queue = b.queue[1:]
	}
	if len(b.queue) == 0 {
		b.queue = nil // let the backing array go
	}
	return batch, finished
}

// scratch is the memory one batch runs in.
type scratch struct {
	gen         uint64 // programs generation of ws's buffers
	ws          *gamma.Workspace[float32]
	alpha, beta []float32 // rows × d, the batch's query embeddings
	scores      []float32 // rows × entities
}

// getScratch returns scratch whose workspace belongs to programs
// generation gen.
func (e *Engine) getScratch(gen uint64) *scratch {
	if s, ok := e.scratch.Get().(*scratch); ok && s.gen == gen {
		return s
	}
	return &scratch{gen: gen, ws: e.model.NewWorkspace()}
}

// putScratch keeps s for reuse unless the program cache has been dropped
// since: its workspace holds buffers for programs no longer used.
func (e *Engine) putScratch(s *scratch) {
	e.progs.mu.Lock()
	cur := e.progs.gen
	e.progs.mu.Unlock()
	if s.gen == cur {
		e.scratch.Put(s)
	}
}

// runBatch answers items: queries of one shape are embedded together, and
// all are scored against every entity in one pass when the union mode
// gives one Gamma per query (moment, dm), else one pass per shape.
func (e *Engine) runBatch(items []*item) {
	if len(items) == 0 {
		return
	}
	if e.qm != nil {
		e.runBatchModel(items)
		return
	}
	n, d := e.model.Config().Entities, e.model.Config().Dim

	// Group the rows by program, keeping their order within each group.
	type group struct {
		prog *gamma.Program
		rows []*item
	}
	var groups []*group
	byProg := map[*gamma.Program]*group{}
	var gen uint64
	for _, it := range items {
		prog, g, err := e.progs.get(it.q)
		if err != nil {
			it.err = err
			continue
		}
		gen = max(gen, g)
		gr := byProg[prog]
		if gr == nil {
			gr = &group{prog: prog}
			byProg[prog] = gr
			groups = append(groups, gr)
		}
		gr.rows = append(gr.rows, it)
	}
	s := e.getScratch(gen)
	defer e.putScratch(s)

	rows := 0
	single := true
	for _, g := range groups {
		rows += len(g.rows)
		single = single && g.prog.Components() == 1
	}
	s.scores = grow(s.scores, rows*n)
	if single {
		s.alpha, s.beta = grow(s.alpha, rows*d), grow(s.beta, rows*d)
	}
	entropy := make([]float64, 0, rows)
	ordered := make([]*item, 0, rows)
	var ids []int32
	off := 0 // first row of the group in the batch
	for _, g := range groups {
		ids = ids[:0]
		for _, it := range g.rows {
			ids = append(ids, query.Slots(it.q)...)
		}
		emb, err := s.ws.Embed(g.prog, ids)
		if err == nil && !single {
			err = s.ws.ScoreAll(emb, s.scores[off*n:(off+len(g.rows))*n])
		}
		if err != nil {
			for _, it := range g.rows {
				it.err = err
			}
			continue
		}
		for r, it := range g.rows {
			entropy = append(entropy, embeddingEntropy(emb, r))
			ordered = append(ordered, it)
		}
		if single {
			copy(s.alpha[off*d:], emb.Alpha[0][:len(g.rows)*d])
			copy(s.beta[off*d:], emb.Beta[0][:len(g.rows)*d])
		}
		off += len(g.rows)
	}
	if single && off > 0 {
		emb := gamma.Embedding[float32]{Rows: off, Dim: d, Alpha: [][]float32{s.alpha[:off*d]}, Beta: [][]float32{s.beta[:off*d]}}
		if err := s.ws.ScoreAll(emb, s.scores[:off*n]); err != nil {
			for _, it := range ordered {
				it.err = err
			}
			ordered = nil
		}
	}
	e.finishAll(s, ordered, entropy, n)
}

// finishAll runs finish for the rows of a batch on up to GOMAXPROCS
// goroutines: ranking, the estimate and exact execution are per query.
func (e *Engine) finishAll(s *scratch, ordered []*item, entropy []float64, n int) {
	workers := min(len(ordered), runtime.GOMAXPROCS(0))
	var next atomic.Int64
	work := func() {
		for {
			r := int(next.Add(1) - 1)
			if r >= len(ordered) {
				return
			}
			it := ordered[r]
			e.rank(it, s.scores[r*n:(r+1)*n], entropy[r])
			if !it.callerPrepares {
				it.res, it.err = e.finish(it)
			}
		}
	}
	if workers <= 1 {
		if workers == 1 {
			work()
		}
		return
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		kernel.Go(&wg, work)
	}
	work()
	wg.Wait()
}

// rank takes what the answer needs from one query's scores: its top k,
// and the estimates.
func (e *Engine) rank(it *item, scores []float32, entropy float64) {
	it.entropy = entropy
	if e.info.Estimates {
		n := expectedCount(scores, e.shift(it.q))
		it.estimate = &n
	}
	it.top = TopK(scores, it.k)
	it.topScores = make([]float32, len(it.top))
	for i, id := range it.top {
		it.topScores[i] = scores[id]
	}
}

// finish checks a ranked query's answers on the graph and builds its
// result.
func (e *Engine) finish(it *item) (*Result, error) {
	e.prepare(it)
	if it.exactErr != nil {
		return nil, it.exactErr
	}
	observed := it.observed
	res := &Result{
		Result: serve.Result{
			Query:            it.text,
			Structure:        it.structure,
			Explain:          it.explain,
			Entropy:          it.entropy,
			EstimatedAnswers: it.estimate,
		},
		ObservedAnswers: observed.Len(),
	}
	res.Answers = make([]serve.Answer, len(it.top))
	for i, id := range it.top {
		res.Answers[i] = serve.Answer{
			Rank:     i + 1,
			ID:       id,
			Name:     e.kg.Entities.Name(id),
			Label:    labelOrEmpty(&e.kg.Entities, id),
			Score:    float64(it.topScores[i]),
			Observed: observed.Has(id),
		}
	}
	res.TookMS = float64(time.Since(it.start).Microseconds()) / 1000
	return res, nil
}

func grow(buf []float32, n int) []float32 {
	if cap(buf) < n {
		return make([]float32, n)
	}
	return buf[:n]
}

// embeddingEntropy is the differential entropy of row b of the embedding,
// weighted over its components when it has several (dnf: plain mean,
// mixture: by the mixture weights).
func embeddingEntropy(e gamma.Embedding[float32], b int) float64 {
	d := e.Dim
	h := 0.0
	for c := 0; c < e.Components(); c++ {
		h += float64(e.Theta(c, b)) * gamma.Entropy(e.Alpha[c][b*d:(b+1)*d], e.Beta[c][b*d:(b+1)*d])
	}
	if e.Components() > 1 && e.Theta(0, b) == 1 { // dnf: Theta is 1 for all
		h /= float64(e.Components())
	}
	return h
}

// shift is the calibration's logit shift for q's structure.
func (e *Engine) shift(q query.Node) float64 {
	if e.info.Calibration.IsZero() {
		return 0
	}
	return e.info.Calibration.For(structureName(q))
}

// expectedCount estimates the size of the answer set as Σ σ(logit +
// shift): for a model trained so that σ(logit) is the probability that an
// entity is an answer (serve.Info.Estimates), up to its calibration's
// shift.
func expectedCount(logits []float32, shift float64) float64 {
	return kernel.SigmoidSum(logits, float32(shift))
}
