// Package evaluate runs the benchmark evaluation of SPEC section 5 on a
// model: every valid or test query of a split is scored against all
// entities, its hard answers get filtered ranks, and the per-query MRR and
// Hits@1/3/10 are averaged per structure and over the paper's positive and
// negation structures. Optionally, it correlates the differential entropy
// of each query embedding with its number of answers (the paper's tables 3
// and A4).
//
// Scoring goes through the model's GEMM form of the KL distance
// (gamma.Workspace.ScoreAll) in blocks of queries of one structure, and the
// ranking of a block (metrics.FilteredRanks, which never sorts all
// entities) runs in other goroutines while the next block is scored. The
// projections of anchors that several queries share, across blocks and
// structures, are computed once beforehand (gamma.Workspace.CacheAnchored).
//
// Ablations of the paper's tables 6 and 7 that are inference-time choices
// are options here (see Variant): the union form (moment, dnf, dm) and
// negation without elasticity (ε = 0). The paper's mixture union needs
// its own learned parameters, so "mixture" against a model trained with
// another union, like a model trained without elasticity, needs a
// retraining (gammae train --union mixture, --epsilon 0).
package evaluate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/gammae/gammae/calibrate"
	"github.com/gammae/gammae/dataset"
	"github.com/gammae/gammae/gamma"
	"github.com/gammae/gammae/internal/kernel"
	"github.com/gammae/gammae/metrics"
)

// Options tune Run. The zero value evaluates every query of the split with
// the model as it is.
type Options struct {
	// Workers is the number of goroutines ranking scored blocks; 0 means
	// one per two CPUs (scoring already uses every core).
	Workers int
	// Block is the number of queries per Embed and ScoreAll call; 0 means
	// 512 (a smaller block re-packs the entity features for the GEMM more
	// often: 20% slower at 128 on FB15k-237).
	Block int
	// PerStructure, when positive, evaluates a sample of at most that many
	// queries of each structure, the same for the same Seed.
	PerStructure int
	Seed         uint64
	// Structures restricts the evaluation to these structures (benchmark
	// names such as "2in", "2u", or shapes); nil means all of the split.
	Structures []string
	// Uncertainty also computes the entropy–cardinality correlations.
	Uncertainty bool
	// Estimates also sums σ(logit) over all entities for every query and
	// compares the sums with the answer counts (Report.Estimates).
	Estimates bool
	// Calibration shifts every logit in the estimates' sums, Σ σ(logit +
	// shift), by its shift for the query's structure; the zero value is
	// none.
	Calibration calibrate.Shifts
	// Union is the union mode to embed union queries with; "" is the
	// model's own. NoElasticity evaluates negation with ε = 0.
	Union        gamma.Union
	NoElasticity bool
	// Progress, if set, is called after each block with the number of
	// queries done and the total. Calls do not overlap.
	Progress func(done, total int)

	noShared bool // tests: project every anchor in its own block
}

// Report is the outcome of Run.
type Report struct {
	Table metrics.Table `json:"table"`
	// Uncertainty is set when Options.Uncertainty was.
	Uncertainty *Uncertainty `json:"uncertainty,omitempty"`
	// Estimates is set when Options.Estimates was.
	Estimates *Estimates  `json:"estimates,omitempty"`
	Union     gamma.Union `json:"union"`   // union mode used
	Epsilon   float64     `json:"epsilon"` // negation elasticity used
	// Precision is GammaE's scoring arithmetic (fp32 or bf16).
	Precision gamma.Precision `json:"precision,omitempty"`
	Queries   int             `json:"queries"` // queries ranked
	// Skipped counts queries without hard answers (no rank to take); the
	// benchmark never has them, imported query sets may.
	Skipped int     `json:"skipped"`
	Seconds float64 `json:"seconds"`
}

// task is the selected queries of one structure and their results.
type task struct {
	group   *dataset.Group
	name    string
	idx     []int // queries of the group, ascending
	prog    *gamma.Program
	results []metrics.Result
	ranked  []bool
	entropy []float64 // when Uncertainty and the embedding is one Gamma
	// estimate is each query's Σ σ(logit + shift), and fit the shift to
	// add to shift that would make it the query's answer count
	// (CountShift), when Estimates.
	estimate, fit []float64
	shift         float32
}

// rankRow ranks query i of t from its logits against all entities.
func (t *task) rankRow(i int, row []float32) error {
	q := t.idx[i]
	res, err := metrics.Evaluate(row, t.group.Answers(q), t.group.EasyAnswers(q))
	if err != nil {
		return fmt.Errorf("structure %s query %d: %v", t.name, q, err)
	}
	t.results[i], t.ranked[i] = res, true
	if t.estimate != nil {
		t.estimate[i] = kernel.SigmoidSum(row, t.shift)
		t.fit[i] = calibrate.CountShift(row, float64(len(t.group.Answers(q))+len(t.group.EasyAnswers(q)))) - float64(t.shift)
	}
	return nil
}

// block is a scored run of rows of one task.
type block struct {
	t      *task
	lo, hi int // positions in t.idx
	scores []float32
}

// Run evaluates m on split.
func Run(ctx context.Context, m *gamma.Model[float32], split *dataset.Split, o Options) (*Report, error) {
	start := time.Now()
	em, err := Variant(m, o.Union, o.NoElasticity)
	if err != nil {
		return nil, err
	}
	tasks, err := plan(em, split, o)
	if err != nil {
		return nil, err
	}
	if o.Block <= 0 {
		o.Block = 512
	}
	workers := o.Workers
	if workers <= 0 {
		workers = max(1, runtime.GOMAXPROCS(0)/2)
	}
	total := 0
	for _, t := range tasks {
		total += len(t.idx)
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var once sync.Once
	var firstErr error
	fail := func(err error) {
		once.Do(func() { firstErr = err; cancel() })
	}

	n := em.Config().Entities
	free := make(chan []float32, workers+1)
	for range workers + 1 {
		free <- make([]float32, o.Block*n)
	}
	jobs := make(chan block, workers)
	var mu sync.Mutex
	done := 0
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for b := range jobs {
				if ctx.Err() == nil {
					if err := rank(b, n); err != nil {
						fail(err)
					}
				}
				free <- b.scores
				if o.Progress != nil && ctx.Err() == nil {
					mu.Lock()
					done += b.hi - b.lo
					o.Progress(done, total)
					mu.Unlock()
				}
			}
		})
	}
	if err := score(ctx, em, tasks, o, free, jobs); err != nil {
		fail(err)
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	r := report(tasks, o, start)
	r.Union, r.Epsilon, r.Precision = em.Config().Mode(), em.Config().Epsilon, em.Precision()
	return r, nil
}

// report gathers the tasks' results.
func report(tasks []*task, o Options, start time.Time) *Report {
	r := &Report{}
	var acc metrics.Accumulator
	for _, t := range tasks {
		for i, ok := range t.ranked {
			if !ok {
				r.Skipped++
				continue
			}
			acc.Add(t.name, t.results[i])
			r.Queries++
		}
	}
	r.Table = acc.Table()
	if o.Uncertainty {
		r.Uncertainty = correlate(tasks)
	}
	if o.Estimates {
		r.Estimates = compareEstimates(tasks, o.Calibration)
	}
	r.Seconds = time.Since(start).Seconds()
	return r
}

// score embeds and scores the tasks block by block, handing each block to
// the rankers.
func score(ctx context.Context, m *gamma.Model[float32], tasks []*task, o Options, free chan []float32, jobs chan<- block) error {
	ws := m.NewWorkspace()
	n, d := m.Config().Entities, m.Config().Dim
	if !o.noShared {
		if err := ws.CacheAnchored(sharedAnchored(tasks, m.Config(), anchoredBudget/(8*d))); err != nil {
			return err
		}
	}
	var ids []int32
	for _, t := range tasks {
		g, slots := t.group, t.group.Slots
		for lo := 0; lo < len(t.idx); lo += o.Block {
			hi := min(lo+o.Block, len(t.idx))
			ids = ids[:0]
			for _, q := range t.idx[lo:hi] {
				ids = append(ids, g.Row(q)...)
			}
			if len(ids) != (hi-lo)*slots {
				return fmt.Errorf("structure %s: %d ids for %d queries of %d slots", t.name, len(ids), hi-lo, slots)
			}
			e, err := ws.Embed(t.prog, ids)
			if err != nil {
				return fmt.Errorf("structure %s: %v", t.name, err)
			}
			if t.entropy != nil && e.Components() == 1 {
				for b := 0; b < hi-lo; b++ {
					t.entropy[lo+b] = gamma.Entropy(e.Alpha[0][b*d:(b+1)*d], e.Beta[0][b*d:(b+1)*d])
				}
			}
			var buf []float32
			select {
			case buf = <-free:
			case <-ctx.Done():
				return nil
			}
			buf = buf[:(hi-lo)*n]
			if err := ws.ScoreAll(e, buf); err != nil {
				return fmt.Errorf("structure %s: %v", t.name, err)
			}
			select {
			case jobs <- block{t: t, lo: lo, hi: hi, scores: buf}:
			case <-ctx.Done():
				return nil
			}
		}
		// The next structure's buffers reuse this one's memory instead of
		// growing the heap: ~30 MB a structure at d=400, each first touch
		// a page fault (the collection costs ~ms; a full FB15k-237
		// evaluation touched 433 MB of fresh buffers without it).
		ws.Forget(t.prog)
		runtime.GC()
	}
	return nil
}

// anchoredBudget bounds the memory of the anchors projected once for the
// whole evaluation (CacheAnchored): 128 MiB, 21k of them at d = 400.
const anchoredBudget = 128 << 20

// sharedAnchored returns the projections of anchors that more than one of
// the tasks' queries make, the most used first, at most limit of them:
// each is then computed once rather than once per block it occurs in. On
// FB15k-237's test queries 15,053 such pairs stand for 125,216 of the
// 152,801 anchored projections (the blocks of 512 computed 111,933 of
// them, the cache 42,638). Ids out of range are left to Embed to report.
func sharedAnchored(tasks []*task, cfg gamma.Config, limit int) []gamma.Anchored {
	uses := map[gamma.Anchored]int32{}
	for _, t := range tasks {
		g := t.group
		for _, sl := range t.prog.AnchoredSlots() {
			for _, q := range t.idx {
				row := g.Row(q)
				e, r := row[sl[0]], row[sl[1]]
				if e >= 0 && int(e) < cfg.Entities && r >= 0 && int(r) < cfg.Relations {
					uses[gamma.Anchored{Entity: e, Relation: r}]++
				}
			}
		}
	}
	var shared []gamma.Anchored
	for a, n := range uses {
		if n > 1 {
			shared = append(shared, a)
		}
	}
	slices.SortFunc(shared, func(x, y gamma.Anchored) int {
		if c := cmp.Compare(uses[y], uses[x]); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(x.Entity, y.Entity), cmp.Compare(x.Relation, y.Relation))
	})
	return shared[:min(len(shared), limit)]
}

// rank computes the metrics of a block's queries.
func rank(b block, n int) error {
	t := b.t
	for i := b.lo; i < b.hi; i++ {
		if len(t.group.Answers(t.idx[i])) == 0 {
			continue
		}
		if err := t.rankRow(i, b.scores[(i-b.lo)*n:(i-b.lo+1)*n]); err != nil {
			return err
		}
	}
	return nil
}

// plan selects the structures and queries to evaluate and compiles them.
func plan(m *gamma.Model[float32], split *dataset.Split, o Options) ([]*task, error) {
	groups, err := selectGroups(split, o)
	if err != nil {
		return nil, err
	}
	var tasks []*task
	for _, g := range groups {
		p, err := m.Compile(g.Template)
		if err != nil {
			return nil, fmt.Errorf("evaluate: structure %s: %v", g.Name(), err)
		}
		t := newTask(g, o)
		t.prog = p
		if o.Uncertainty && p.Components() == 1 {
			t.entropy = make([]float64, len(t.idx))
		}
		tasks = append(tasks, t)
	}
	return tasks, nil
}

// newTask selects the queries of g that o asks for.
func newTask(g *dataset.Group, o Options) *task {
	t := &task{group: g, name: g.Name(), idx: sample(g.Len(), o.PerStructure, o.Seed, g.Shape)}
	t.results = make([]metrics.Result, len(t.idx))
	t.ranked = make([]bool, len(t.idx))
	if o.Estimates {
		t.estimate, t.fit = make([]float64, len(t.idx)), make([]float64, len(t.idx))
		t.shift = float32(o.Calibration.For(metrics.Canonical(t.name)))
	}
	return t
}

// selectGroups returns the non-empty groups of split that o names (all
// when it names none), in the split's order.
func selectGroups(split *dataset.Split, o Options) ([]*dataset.Group, error) {
	if split == nil {
		return nil, errors.New("evaluate: no split")
	}
	groups := split.Groups
	if o.Structures != nil {
		groups = nil
		for _, name := range o.Structures {
			g := split.Group(name)
			if g == nil {
				var have []string
				for _, g := range split.Groups {
					have = append(have, g.Name())
				}
				return nil, fmt.Errorf("evaluate: structure %q not in the split (it has %v)", name, have)
			}
			if !slices.Contains(groups, g) {
				groups = append(groups, g)
			}
		}
		// Keep the split's order whatever order the names came in.
		slices.SortFunc(groups, func(a, b *dataset.Group) int {
			return slices.Index(split.Groups, a) - slices.Index(split.Groups, b)
		})
	}
	var out []*dataset.Group
	for _, g := range groups {
		if g.Len() > 0 {
			out = append(out, g)
		}
	}
	return out, nil
}

// sample returns k of the n query indices (all when k ≤ 0 or k ≥ n),
// ascending, drawn from a stream that depends only on seed and the shape.
func sample(n, k int, seed uint64, shape string) []int {
	if k <= 0 || k >= n {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	h := fnv.New64a()
	h.Write([]byte(shape))
	idx := rand.New(rand.NewPCG(seed, h.Sum64())).Perm(n)[:k]
	slices.Sort(idx)
	return idx
}
