package evaluate

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gammae/gammae/dataset"
	"github.com/gammae/gammae/qe"
	"github.com/gammae/gammae/query"
)

// RunModel evaluates any query-embedding model on split with the same
// protocol and report as Run: every selected query is scored against all
// entities (m.Scores, unions by their best DNF branch) and ranked with the
// filter. The uncertainty correlations use m.Uncertainty (BetaE: entropy,
// Query2Box: box size, ConE: cone size); a model without one leaves them
// out. Options.Union and NoElasticity are GammaE's and are refused here.
// Queries are spread over GOMAXPROCS goroutines (Scores and Uncertainty are
// safe for concurrent use).
func RunModel(ctx context.Context, m qe.Model, entities int, split *dataset.Split, o Options) (*Report, error) {
	if o.Union != "" || o.NoElasticity {
		return nil, fmt.Errorf("evaluate: --union and --no-elasticity are GammaE's inference options, not %s's", m.Kind())
	}
	start := time.Now()
	groups, err := selectGroups(split, o)
	if err != nil {
		return nil, err
	}
	var tasks []*task
	total := 0
	for _, g := range groups {
		t := newTask(g, o)
		if o.Uncertainty {
			t.entropy = make([]float64, len(t.idx))
		}
		tasks = append(tasks, t)
		total += len(t.idx)
	}
	// A job is a block of a task's queries: models that score a block
	// together (qe.BatchScorer) batch their embeddings' products.
	type job struct {
		t      *task
		i0, i1 int
	}
	block := 1
	if _, ok := m.(qe.BatchScorer); ok {
		block = scoreBlock
	}
	jobs := make(chan job, 64)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var once sync.Once
	var firstErr error
	fail := func(err error) { once.Do(func() { firstErr = err; cancel() }) }
	var done atomic.Int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			scores := make([]float64, block*entities)
			row := make([]float32, entities)
			for j := range jobs {
				if ctx.Err() != nil {
					continue
				}
				if err := rankBlock(m, j.t, j.i0, j.i1, scores, row); err != nil {
					fail(err)
					continue
				}
				if n := done.Add(int64(j.i1 - j.i0)); o.Progress != nil && (n%256 < int64(j.i1-j.i0) || int(n) == total) {
					mu.Lock()
					o.Progress(int(n), total)
					mu.Unlock()
				}
			}
		})
	}
feed:
	for _, t := range tasks {
		for i := 0; i < len(t.idx); i += block {
			select {
			case jobs <- job{t, i, min(i+block, len(t.idx))}:
			case <-ctx.Done():
				break feed
			}
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if o.Uncertainty {
		for _, t := range tasks {
			if t.entropy != nil && !hasUncertainty(m, t) {
				t.entropy = nil
			}
		}
	}
	return report(tasks, o, start), nil
}

// scoreBlock is the queries a batch-scoring model scores at once.
const scoreBlock = 32

// rankBlock scores and ranks queries [i0, i1) of t: together when m is a
// qe.BatchScorer, else one by one.
func rankBlock(m qe.Model, t *task, i0, i1 int, scores []float64, row []float32) error {
	var idx []int // the block's queries with hard answers to rank
	var qs []query.Node
	for i := i0; i < i1; i++ {
		q := t.group.Query(t.idx[i])
		if t.entropy != nil {
			if u, ok := m.Uncertainty(q); ok {
				t.entropy[i] = u
			}
		}
		if len(t.group.Answers(t.idx[i])) > 0 {
			idx, qs = append(idx, i), append(qs, q)
		}
	}
	if len(qs) == 0 {
		return nil
	}
	n := len(row) // entities
	if bs, ok := m.(qe.BatchScorer); ok && len(qs) > 1 {
		if err := bs.ScoresBatch(qs, scores[:len(qs)*n]); err != nil {
			return fmt.Errorf("structure %s queries %d…: %v", t.name, t.idx[idx[0]], err)
		}
	} else {
		for k, q := range qs {
			if err := m.Scores(q, scores[k*n:(k+1)*n]); err != nil {
				return fmt.Errorf("structure %s query %d: %v", t.name, t.idx[idx[k]], err)
			}
		}
	}
	for k, i := range idx {
		if err := rankOne(t, i, scores[k*n:(k+1)*n], row); err != nil {
			return err
		}
	}
	return nil
}

// rankOne ranks query i of t from its scores.
func rankOne(t *task, i int, scores []float64, row []float32) error {
	for k, v := range scores {
		row[k] = float32(v)
	}
	return t.rankRow(i, row)
}

// hasUncertainty reports whether m gives t's structure a size measure.
func hasUncertainty(m qe.Model, t *task) bool {
	if len(t.idx) == 0 {
		return false
	}
	_, ok := m.Uncertainty(t.group.Query(t.idx[0]))
	return ok
}
