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

// HardSet holds, for each query of a group with a negation, entities its
// negations must remove: the answers on the training graph of the query
// with its negated branches dropped (query.Relax: 2in's positive branch,
// pin's 2p), less the query's own answers. These are the negatives that
// teach the negation operator; uniform draws rarely meet them.
type HardSet struct {
	off []int64
	ids []int32
}

// Row returns query i's hard negatives (empty when it has none).
func (h *HardSet) Row(i int) []int32 { return h.ids[h.off[i]:h.off[i+1]] }

// Len is the number of entities over all queries.
func (h *HardSet) Len() int { return len(h.ids) }

// hardSets returns each group's hard negatives, nil for the groups whose
// queries have no negation to drop. A query with more than hardKeep keeps a
// random subset of them, drawn from seed. The groups run side by side, one
// per core (each with its own random source, so the sets do not depend on
// the order): a run's start spent 2.6 s on FB15k-237's five negation
// groups on one core.
func hardSets(g *kg.Graph, groups []*dataset.Group, seed uint64) ([]*HardSet, error) {
	out := make([]*HardSet, len(groups))
	errs := make([]error, len(groups))
	next := atomic.Int64{}
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(groups)) {
		wg.Go(func() {
			for gi := int(next.Add(1) - 1); gi < len(groups); gi = int(next.Add(1) - 1) {
				out[gi], errs[gi] = hardSet(g, groups[gi], rand.New(rand.NewPCG(seed, uint64(gi))))
			}
		})
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// hardSet is hardSets for one group; nil when its queries have no
// negation.
func hardSet(g *kg.Graph, grp *dataset.Group, rng *rand.Rand) (*HardSet, error) {
	if _, ok := query.Relax(grp.Template); !ok {
		return nil, nil
	}
	h := &HardSet{off: make([]int64, 1, grp.Len()+1)}
	var buf, all []int32
	for i := range grp.Len() {
		r, _ := query.Relax(grp.Query(i))
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
	queries, ents := 0, 0
	for i, s := range []*Stream{t.path, t.other} {
		if s == nil {
			continue
		}
		h, err := hardSets(t.ds.KG.Train, s.groups, t.cfg.Seed^uint64(0x4a7d+i))
		if err != nil {
			return fmt.Errorf("hard negatives: %w", err)
		}
		for gi, hs := range h {
			if hs != nil {
				queries += s.groups[gi].Len()
				ents += hs.Len()
			}
		}
		s.Hard, s.HardPerRow = h, t.cfg.HardNegatives
	}
	if queries == 0 {
		t.logf("train: hard negatives: no training structure has a negation")
		return nil
	}
	t.logf("train: hard negatives: %d per negation query, drawn from %.1f per query on average (at most %d) over %d queries, found in %.1fs",
		t.cfg.HardNegatives, float64(ents)/float64(queries), hardKeep, queries, time.Since(start).Seconds())
	return nil
}
