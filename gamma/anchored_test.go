package gamma

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gammae/gammae/query"
)

func TestAnchoredSlots(t *testing.T) {
	cases := []struct {
		shape string
		mode  Union
		want  [][2]int
	}{
		{"(e,(r,))", UnionMoment, [][2]int{{0, 1}}},
		{"(e,(r,r,r))", UnionMoment, [][2]int{{0, 1}}},
		{"((e,(r,)),(e,(r,)))", UnionMoment, [][2]int{{0, 1}, {2, 3}}},
		{"((e,(r,r)),(e,(r,n)))", UnionMoment, [][2]int{{0, 1}, {3, 4}}},
		// DNF copies the branches' projections; each pair is listed once.
		{"(((e,(r,)),(e,(r,)),(u,)),(r,))", UnionDNF, [][2]int{{0, 1}, {2, 3}}},
		{"(((e,(r,)),(e,(r,))),(r,))", UnionMoment, [][2]int{{0, 1}, {2, 3}}},
	}
	for _, c := range cases {
		got := mustCompile(t, c.shape, c.mode).AnchoredSlots()
		slices.SortFunc(got, func(a, b [2]int) int { return a[0] - b[0] })
		if !slices.Equal(got, c.want) {
			t.Errorf("%s %s: %v, want %v", c.shape, c.mode, got, c.want)
		}
	}
}

// TestCacheAnchored checks that embeddings with some or all anchored
// projections taken from the cache are those computed without it, in
// every union mode, and that training ignores the cache.
func TestCacheAnchored(t *testing.T) {
	shapes := []string{"(e,(r,r,r))", "((e,(r,)),(e,(r,)))", "((e,(r,r)),(e,(r,n)))",
		"(((e,(r,)),(e,(r,)),(u,)),(r,))", "(((e,(r,)),(e,(r,))),(r,))"}
	for _, mode := range []Union{UnionMoment, UnionDNF, UnionMixture, UnionDM} {
		cfg := tinyConfig(mode)
		cfg.Entities, cfg.Relations = 40, 6
		m, err := New[float32](cfg, rand.New(rand.NewPCG(7, 8)))
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(9, 10))
		for _, shape := range shapes {
			p := mustCompile(t, shape, mode)
			const rows = 30
			var ids []int32
			for range rows {
				ids = append(ids, randomIDs(p, cfg, rng)...)
			}
			w := m.NewWorkspace()
			want := embedCopy(t, w, p, ids)

			// Every anchored projection of the batch, then half of them
			// with pairs the batch never uses.
			var all, half []Anchored
			for r := range rows {
				for _, sl := range p.AnchoredSlots() {
					a := Anchored{ids[r*p.slots+sl[0]], ids[r*p.slots+sl[1]]}
					all = append(all, a)
					if r%2 == 0 {
						half = append(half, a, Anchored{int32(rng.IntN(cfg.Entities)), int32(rng.IntN(cfg.Relations))})
					}
				}
			}
			for name, pairs := range map[string][]Anchored{"all": all, "half": half} {
				if err := w.CacheAnchored(pairs); err != nil {
					t.Fatal(err)
				}
				got := embedCopy(t, w, p, ids)
				for c := range want.Alpha {
					if !slices.Equal(got.Alpha[c], want.Alpha[c]) || !slices.Equal(got.Beta[c], want.Beta[c]) {
						t.Errorf("%s %s, %s cached: component %d differs from the nets' output", mode, shape, name, c)
					}
				}
			}
			w.DropAnchored()
			if got := embedCopy(t, w, p, ids); !slices.Equal(got.Alpha[0], want.Alpha[0]) {
				t.Errorf("%s %s: after DropAnchored, the embedding differs", mode, shape)
			}
		}
	}
}

// TestCacheAnchoredTraining checks that a cache filled with wrong values
// changes Embed but not Forward: training runs the nets.
func TestCacheAnchoredTraining(t *testing.T) {
	m, err := New[float32](tinyConfig(UnionMoment), rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	b := randomBatch(t, m, []string{"(e,(r,r))", "((e,(r,)),(e,(r,)))"}, 6, 3, rand.New(rand.NewPCG(3, 4)))
	w := m.NewWorkspace()
	want, err := w.Forward(b, rand.New(rand.NewPCG(5, 6)))
	if err != nil {
		t.Fatal(err)
	}
	var pairs []Anchored
	for _, g := range b.Groups {
		for r := 0; r < len(g.IDs)/g.Program.slots; r++ {
			for _, sl := range g.Program.AnchoredSlots() {
				pairs = append(pairs, Anchored{g.IDs[r*g.Program.slots+sl[0]], g.IDs[r*g.Program.slots+sl[1]]})
			}
		}
	}
	if err := w.CacheAnchored(pairs); err != nil {
		t.Fatal(err)
	}
	for i := range w.cache.a {
		w.cache.a[i], w.cache.b[i] = 3, 5
	}
	got, err := w.Forward(b, rand.New(rand.NewPCG(5, 6)))
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("Forward with a cache: %+v, want %+v", got, want)
	}
	// Inference does read them.
	p, err := m.Compile(query.Projection{Arg: query.Anchor{}})
	if err != nil {
		t.Fatal(err)
	}
	e, err := w.Embed(p, []int32{pairs[0].Entity, pairs[0].Relation})
	if err != nil {
		t.Fatal(err)
	}
	if e.Alpha[0][0] != 3 || e.Beta[0][0] != 5 {
		t.Errorf("Embed of a cached projection: α %v β %v, want the cache's 3 and 5", e.Alpha[0][0], e.Beta[0][0])
	}
}

func TestCacheAnchoredRejects(t *testing.T) {
	m, err := New[float32](tinyConfig(UnionMoment), rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	w := m.NewWorkspace()
	for _, a := range []Anchored{{-1, 0}, {9, 0}, {0, -1}, {0, 4}} {
		if err := w.CacheAnchored([]Anchored{{0, 0}, a}); err == nil {
			t.Errorf("CacheAnchored(%v) accepted", a)
		}
	}
}

// embedCopy embeds ids and copies the result out of the workspace.
func embedCopy(t *testing.T, w *Workspace[float32], p *Program, ids []int32) Embedding[float32] {
	t.Helper()
	e, err := w.Embed(p, ids)
	if err != nil {
		t.Fatal(err)
	}
	for c := range e.Alpha {
		e.Alpha[c], e.Beta[c] = slices.Clone(e.Alpha[c]), slices.Clone(e.Beta[c])
	}
	return e
}
