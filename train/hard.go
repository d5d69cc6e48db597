package train

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gammae/gammae/dataset"
	"github.com/gammae/gammae/exact"
	"github.com/gammae/gammae/kg"
	"github.com/gammae/gammae/query"
)

// hardKeep bounds the hard negatives kept per query: a pin query's
// relaxation (a 2p query) can reach thousands of entities, and a batch
// draws a few of them per row.
const hardKeep = 128

// HardSet holds, for each query of a group, entities its operators must
// rule out, less the query's own answers: for a query with a negation, the
// answers on the training graph of the query with its negated branches
// dropped (query.Relax: 2in's positive branch, pin's 2p), the entities
// its negations must remove; for one with intersections, the answers of
// the query with each intersection replaced by the union of its branches
// (query.Loosen: 2i's two 1p branches), the entities its intersections
// must remove. Uniform draws rarely meet them.
type HardSet struct {
	off []int64
	ids []int32
	// PerRow is how many of them a batch row draws, with replacement.
	PerRow int
	// Extra: with shared negatives, the draws join the batch's candidates
	// beyond the stream's count, instead of taking its first places.
	Extra bool
}

// Row returns query i's hard negatives (empty when it has none).
func (h *HardSet) Row(i int) []int32 { return h.ids[h.off[i]:h.off[i+1]] }

// Len is the number of entities over all queries.
func (h *HardSet) Len() int { return len(h.ids) }

// hardSets returns each group's hard negatives, nil for the groups whose
// queries have none: a negation query's (query.Relax; a row draws
// negation of them), and a negation-free intersection query's
// (query.Loosen; a row draws intersection of them, beyond the shared
// negatives); a count of 0 leaves that kind out. A query with more than hardKeep keeps a random subset
// of them, drawn from seed. The groups run side by side, one per core
// (each with its own random source, so the sets do not depend on the
// order): a run's start spent 2.6 s on FB15k-237's five negation groups
// on one core.
func hardSets(g *kg.Graph, groups []*dataset.Group, seed uint64, negation, intersection int) ([]*HardSet, error) {
	out := make([]*HardSet, len(groups))
	errs := make([]error, len(groups))
	next := atomic.Int64{}
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(groups)) {
		wg.Go(func() {
			for gi := int(next.Add(1) - 1); gi < len(groups); gi = int(next.Add(1) - 1) {
				grp := groups[gi]
				relax, perRow, extra := query.Relax, negation, false
				if _, neg := query.Relax(grp.Template); !neg {
					relax, perRow, extra = query.Loosen, intersection, true
				}
				if _, ok := relax(grp.Template); !ok || perRow <= 0 {
					continue
				}
				h, err := hardSet(g, grp, relax, rand.New(rand.NewPCG(seed, uint64(gi))))
				if h != nil {
					h.PerRow, h.Extra = perRow, extra
				}
				out[gi], errs[gi] = h, err
			}
		})
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// hardSet is hardSets for one group, whose queries relax turns into the
// queries whose answers, less their own, are their hard negatives.
func hardSet(g *kg.Graph, grp *dataset.Group, relax func(query.Node) (query.Node, bool), rng *rand.Rand) (*HardSet, error) {
	h := &HardSet{off: make([]int64, 1, grp.Len()+1)}
	var buf, all []int32
	for i := range grp.Len() {
		r, _ := relax(grp.Query(i))
		s, err := exact.Execute(g, r)
		if err != nil {
			return nil, err
		}
		ans := grp.Answers(i)
		buf = buf[:0]
		all = s.AppendTo(all[:0])
		for _, e := range all {
			if !contains(ans, e) {
				buf = append(buf, e)
			}
		}
		if len(buf) > hardKeep {
			for k := range hardKeep {
				j := k + rng.IntN(len(buf)-k)
				buf[k], buf[j] = buf[j], buf[k]
			}
			buf = buf[:hardKeep]
		}
		h.ids = append(h.ids, buf...)
		h.off = append(h.off, int64(len(h.ids)))
	}
	return h, nil
}

// setupHard gives the streams their groups' hard negatives.
func (t *trainer) setupHard() error {
	start := time.Now()
	var queries, ents [2]int // negation, intersection
	for i, s := range []*Stream{t.path, t.other} {
		if s == nil {
			continue
		}
		h, err := hardSets(t.ds.KG.Train, s.groups, t.cfg.Seed^uint64(0x4a7d+i), t.cfg.HardNegatives, t.cfg.HardIntersections)
		if err != nil {
			return fmt.Errorf("hard negatives: %w", err)
		}
		for gi, hs := range h {
			if hs != nil {
				k := 0
				if hs.Extra {
					k = 1
				}
				queries[k] += s.groups[gi].Len()
				ents[k] += hs.Len()
			}
		}
		s.Hard = h
	}
	for k, c := range [2]struct {
		kind, article string
		perRow        int
	}{{"negation", "a", t.cfg.HardNegatives}, {"intersection", "an", t.cfg.HardIntersections}} {
		switch {
		case c.perRow == 0:
		case queries[k] == 0:
			t.logf("train: hard negatives: no training structure has %s %s", c.article, c.kind)
		default:
			t.logf("train: hard negatives: %d per %s query, drawn from %.1f per query on average (at most %d) over %d queries",
				c.perRow, c.kind, float64(ents[k])/float64(queries[k]), hardKeep, queries[k])
		}
	}
	t.logf("train: hard negatives found in %.1fs", time.Since(start).Seconds())
	return nil
}
