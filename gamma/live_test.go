package gamma

import (
	"cmp"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestEntityGradSparse: after EntityGradSparse, Backward gives every
// gradient but the entity table's as over zeroed gradients, writes the
// table's rows EntityGradRows lists with the zeroed run's values (the
// candidates' and the anchors', an anchor that is no candidate included),
// lists every row that run made nonzero, leaves the other rows as they
// were, and refuses to accumulate into the partial table until ZeroGrad.
func TestEntityGradSparse(t *testing.T) {
	for _, o := range []Objective{{}, {Kind: "all"}, {Kind: "shared"}} {
		t.Run(cmp.Or(o.Kind, "sampled"), func(t *testing.T) {
			// 400 entities, 10 queries of 3 structures, 4 negatives each:
			// most rows reached by nothing, anchors that are no candidates.
			_, m64, m, _ := twinModels(t, 400, 24, 40, 7)
			b := randomBatch(t, m64, []string{"(e,(r,r))", "((e,(r,)),(e,(r,n)))", "(e,(r,))"}, 10, 4, rand.New(rand.NewPCG(5, 5)))
			b.Objective = o
			if o.Kind == "shared" {
				shareNegatives(b, 4)
			}
			_, want := trainStep(t, m, b, nil)
			const stale = 7
			for _, g := range m.Grads() {
				for j := range g.Data {
					g.Data[j] = stale
				}
			}
			// Every gradient but the table's is zero, as after an Adam step
			// with ZeroGrads.
			for i, g := range m.Grads() {
				if i != m.entity {
					clear(g.Data)
				}
			}
			m.EntityGradSparse()
			_, got, ws := stepFrom(t, m, b, nil)
			rows, ok := ws.EntityGradRows()
			if !ok {
				t.Fatal("EntityGradRows: not set after EntityGradSparse")
			}
			if !slices.IsSorted(rows) || len(slices.Compact(slices.Clone(rows))) != len(rows) {
				t.Fatalf("rows %v: not ascending and distinct", rows)
			}
			w := 2 * m.cfg.Dim
			anchorOnly := 0
			for i := range want {
				for j, v := range want[i] {
					g := got[i][j]
					if i == m.entity {
						if _, live := slices.BinarySearch(rows, int32(j/w)); !live {
							if v != 0 {
								t.Fatalf("entity row %d: gradient %g over zeroed gradients, not listed", j/w, v)
							}
							if g != stale {
								t.Fatalf("entity row %d, not listed: %g, want the stale %d left alone", j/w, g, stale)
							}
							continue
						}
					}
					if math.Float32bits(g) != math.Float32bits(v) {
						t.Fatalf("%s[%d]: %g after EntityGradSparse, %g over zeroed gradients", m.params[i].Name, j, g, v)
					}
				}
			}
			for _, id := range rows {
				if _, cand := slices.BinarySearch(ws.train.uniq, id); !cand {
					anchorOnly++
				}
			}
			// The 1-vs-all objective's candidates are every entity.
			if o.Kind != "all" && anchorOnly == 0 {
				t.Error("no anchor outside the candidates: the test misses the anchors' rows")
			}
			if o.Kind != "all" && len(rows) > m.cfg.Entities/2 {
				t.Errorf("%d of %d rows listed: the test misses the stale rows", len(rows), m.cfg.Entities)
			}
			if _, err := ws.Forward(b, nil); err != nil {
				t.Fatal(err)
			}
			if err := ws.Backward(); !errors.Is(err, errPartialEntity) {
				t.Errorf("accumulating into the partial table: %v, want errPartialEntity", err)
			}
			m.ZeroGrad()
			_, again, ws := stepFrom(t, m, b, nil)
			if _, ok := ws.EntityGradRows(); ok {
				t.Error("EntityGradRows set after ZeroGrad")
			}
			sameGrads(t, m, again, want)
		})
	}
}

func sameGrads(t *testing.T, m *Model[float32], got, want [][]float32) {
	t.Helper()
	for i := range want {
		for j, v := range want[i] {
			if math.Float32bits(got[i][j]) != math.Float32bits(v) {
				t.Fatalf("%s[%d]: %g, want %g", m.params[i].Name, j, got[i][j], v)
			}
		}
	}
}
