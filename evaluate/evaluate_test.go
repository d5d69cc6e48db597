package evaluate

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gammae/gammae/dataset"
	"github.com/gammae/gammae/gamma"
	"github.com/gammae/gammae/metrics"
	"github.com/gammae/gammae/query"
)

const (
	entities  = 23
	relations = 6
)

// tinyModel is a random model small enough to check by hand-written loops.
func tinyModel(t *testing.T, union gamma.Union) *gamma.Model[float32] {
	t.Helper()
	cfg := gamma.Config{Entities: entities, Relations: relations, Dim: 4, Hidden: 8, Layers: 2,
		Gamma: 12, Epsilon: 0.07, InitRange: 1.5, Union: union}
	m, err := gamma.New[float32](cfg, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// tinySplit grounds the given structures with random ids and random
// disjoint hard and easy answers; every third query of 3in has no hard
// answer (to be skipped).
func tinySplit(t *testing.T, perStructure int, names ...string) *dataset.Split {
	t.Helper()
	r := rand.New(rand.NewPCG(5, 6))
	s := &dataset.Split{}
	for _, name := range names {
		st, ok := query.Lookup(name)
		if !ok {
			t.Fatalf("no structure %s", name)
		}
		g, err := dataset.NewGroup(st.Shape)
		if err != nil {
			t.Fatal(err)
		}
		kinds := slotKinds(t, g.Template, g.Slots)
		for q := 0; q < perStructure; q++ {
			ids := make([]int32, g.Slots)
			for i, ent := range kinds {
				if ent {
					ids[i] = int32(r.IntN(entities))
				} else {
					ids[i] = int32(r.IntN(relations))
				}
			}
			perm := r.Perm(entities)
			nh := 1 + r.IntN(4)
			if name == "3in" && q%3 == 0 {
				nh = 0
			}
			ne := r.IntN(5)
			hard := toSorted(perm[:nh])
			easy := toSorted(perm[nh : nh+ne])
			g.Append(ids, hard, easy)
		}
		s.Groups = append(s.Groups, g)
	}
	return s
}

// slotKinds says which slots of a template hold entities (the others hold
// relations), by filling distinct markers.
func slotKinds(t *testing.T, tmpl query.Node, slots int) []bool {
	t.Helper()
	ids := make([]int32, slots)
	for i := range ids {
		ids[i] = int32(1000 + i)
	}
	q, err := query.Fill(tmpl, ids)
	if err != nil {
		t.Fatal(err)
	}
	kinds := make([]bool, slots)
	var walk func(n query.Node)
	walk = func(n query.Node) {
		switch n := n.(type) {
		case query.Anchor:
			kinds[n.Entity-1000] = true
		case query.Projection:
			walk(n.Arg)
		case query.Negation:
			walk(n.Arg)
		case query.Intersection:
			for _, a := range n.Args {
				walk(a)
			}
		case query.Union:
			for _, a := range n.Args {
				walk(a)
			}
		}
	}
	walk(q)
	if !slices.Contains(kinds, true) {
		t.Fatalf("no anchor slot found in %v", q)
	}
	return kinds
}

func toSorted(x []int) []int32 {
	out := make([]int32, len(x))
	for i, v := range x {
		out[i] = int32(v)
	}
	slices.Sort(out)
	return out
}

// naive evaluates one query at a time with a plain loop over entities:
// rank = 1 + non-answers scoring strictly higher.
func naive(t *testing.T, m *gamma.Model[float32], s *dataset.Split) (map[string]metrics.Result, map[string]int) {
	t.Helper()
	ws := m.NewWorkspace()
	sums, counts := map[string]metrics.Result{}, map[string]int{}
	scores := make([]float32, entities)
	for _, g := range s.Groups {
		p, err := m.Compile(g.Template)
		if err != nil {
			t.Fatal(err)
		}
		for q := 0; q < g.Len(); q++ {
			hard, easy := g.Answers(q), g.EasyAnswers(q)
			if len(hard) == 0 {
				continue
			}
			e, err := ws.Embed(p, g.Row(q))
			if err != nil {
				t.Fatal(err)
			}
			if err := ws.ScoreAll(e, scores); err != nil {
				t.Fatal(err)
			}
			if e.Components() == 1 {
				checkKL(t, m, e, scores)
			}
			var r metrics.Result
			for _, a := range hard {
				rank := 1
				for x := range int32(entities) {
					if !slices.Contains(hard, x) && !slices.Contains(easy, x) && scores[x] > scores[a] {
						rank++
					}
				}
				r.MRR += 1 / float64(rank)
				r.Hits1 += b2f(rank <= 1)
				r.Hits3 += b2f(rank <= 3)
				r.Hits10 += b2f(rank <= 10)
			}
			k := float64(len(hard))
			name := metrics.Canonical(g.Name())
			acc := sums[name]
			acc.MRR += r.MRR / k
			acc.Hits1 += r.Hits1 / k
			acc.Hits3 += r.Hits3 / k
			acc.Hits10 += r.Hits10 / k
			sums[name] = acc
			counts[name]++
		}
	}
	for name, r := range sums {
		n := float64(counts[name])
		sums[name] = metrics.Result{MRR: r.MRR / n, Hits1: r.Hits1 / n, Hits3: r.Hits3 / n, Hits10: r.Hits10 / n}
	}
	return sums, counts
}

// checkKL compares a row of ScoreAll with γ − Σ_d KL(entity ‖ query)
// computed per entity and dimension in float64.
func checkKL(t *testing.T, m *gamma.Model[float32], e gamma.Embedding[float32], scores []float32) {
	t.Helper()
	c := m.Config()
	ent, _ := m.Param("entity_embedding")
	reg := func(x float32) float64 { return min(max(float64(x)+1, 0.15), 1e9) }
	for x := range c.Entities {
		row := ent.Data[x*2*c.Dim : (x+1)*2*c.Dim]
		dist := 0.0
		for j := range c.Dim {
			dist += math.Abs(gamma.KL(reg(row[j]), reg(row[c.Dim+j]), float64(e.Alpha[0][j]), float64(e.Beta[0][j])))
		}
		want := c.Gamma - dist
		if math.Abs(float64(scores[x])-want) > 1e-4*max(1, math.Abs(want)) {
			t.Fatalf("entity %d: ScoreAll %v, per-entity KL %v", x, scores[x], want)
		}
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

var allNames = []string{"1p", "2p", "3p", "2i", "3i", "pi", "ip", "2u", "up", "2in", "3in", "inp", "pin", "pni", "2u-DM", "up-DM"}

// TestRunMatchesNaive compares Run, in blocks and with several rankers,
// against the one-query-at-a-time loop, for every union mode.
func TestRunMatchesNaive(t *testing.T) {
	split := tinySplit(t, 11, allNames...)
	for _, c := range []struct {
		union          gamma.Union
		block, workers int
	}{
		{gamma.UnionMoment, 4, 2},
		{gamma.UnionMoment, 128, 1},
		{gamma.UnionDNF, 3, 3},
		{gamma.UnionDM, 5, 1},
		{gamma.UnionMixture, 7, 2},
	} {
		t.Run(string(c.union), func(t *testing.T) {
			m := tinyModel(t, c.union)
			want, counts := naive(t, m, split)
			r, err := Run(context.Background(), m, split, Options{Block: c.block, Workers: c.workers})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Table.Rows) != len(allNames) {
				t.Errorf("%d rows, want %d", len(r.Table.Rows), len(allNames))
			}
			total := 0
			for _, row := range r.Table.Rows {
				w := want[row.Structure]
				if row.Queries != counts[row.Structure] || !near(row.Result, w) {
					t.Errorf("%s: %d queries %+v, want %d %+v", row.Structure, row.Queries, row.Result, counts[row.Structure], w)
				}
				total += row.Queries
			}
			if r.Queries != total || r.Skipped != 4 {
				t.Errorf("Queries %d Skipped %d, want %d and 4", r.Queries, r.Skipped, total)
			}
			if r.Union != c.union || r.Epsilon != 0.07 {
				t.Errorf("union %s epsilon %v", r.Union, r.Epsilon)
			}
			if len(r.Table.Positive.Of) != 9 || len(r.Table.Negation.Of) != 5 {
				t.Errorf("averages over %v and %v", r.Table.Positive.Of, r.Table.Negation.Of)
			}
		})
	}
}

func near(a, b metrics.Result) bool {
	const tol = 1e-12
	return math.Abs(a.MRR-b.MRR) < tol && math.Abs(a.Hits1-b.Hits1) < tol &&
		math.Abs(a.Hits3-b.Hits3) < tol && math.Abs(a.Hits10-b.Hits10) < tol
}

// TestAblations evaluates one moment-trained model in the other union
// forms and without elasticity: Run must equal the naive loop over the
// model rebuilt with that configuration.
func TestAblations(t *testing.T) {
	split := tinySplit(t, 9, "2u", "up", "2in", "pni")
	m := tinyModel(t, gamma.UnionMoment)
	for _, c := range []struct {
		union gamma.Union
		noEl  bool
	}{{gamma.UnionDNF, false}, {gamma.UnionDM, false}, {"", true}, {gamma.UnionDNF, true}} {
		cfg := m.Config()
		if c.union != "" {
			cfg.Union = c.union
		}
		if c.noEl {
			cfg.Epsilon = 0
		}
		ref, err := gamma.Load[float32](cfg, m.Params())
		if err != nil {
			t.Fatal(err)
		}
		want, _ := naive(t, ref, split)
		r, err := Run(context.Background(), m, split, Options{Union: c.union, NoElasticity: c.noEl, Block: 4})
		if err != nil {
			t.Fatal(err)
		}
		if r.Union != cfg.Mode() || r.Epsilon != cfg.Epsilon {
			t.Errorf("%+v: report says union %s epsilon %v", c, r.Union, r.Epsilon)
		}
		for _, row := range r.Table.Rows {
			if !near(row.Result, want[row.Structure]) {
				t.Errorf("%+v %s: %+v, want %+v", c, row.Structure, row.Result, want[row.Structure])
			}
		}
	}
}

func TestVariant(t *testing.T) {
	moment := tinyModel(t, gamma.UnionMoment)
	mixture := tinyModel(t, gamma.UnionMixture)
	cases := []struct {
		name    string
		m       *gamma.Model[float32]
		union   gamma.Union
		noEl    bool
		same    bool
		wantErr string
	}{
		{"unchanged", moment, "", false, true, ""},
		{"same mode named", moment, gamma.UnionMoment, false, true, ""},
		{"dnf", moment, gamma.UnionDNF, false, false, ""},
		{"no elasticity", moment, "", true, false, ""},
		{"mixture to dnf", mixture, gamma.UnionDNF, false, false, ""},
		{"mixture needs weights", moment, gamma.UnionMixture, false, false, "retrain with --union mixture"},
		{"bad mode", moment, "sum", false, false, "union"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := Variant(c.m, c.union, c.noEl)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (v == c.m) != c.same {
				t.Errorf("same model %v, want %v", v == c.m, c.same)
			}
			if c.union != "" && v.Config().Mode() != c.union {
				t.Errorf("mode %s", v.Config().Mode())
			}
			if c.noEl && v.Config().Epsilon != 0 {
				t.Errorf("epsilon %v", v.Config().Epsilon)
			}
		})
	}
}

// TestSampleAndSelect checks the per-structure sample (deterministic, the
// same whatever the block size or the order of the structures asked for)
// and the structure selection.
func TestSampleAndSelect(t *testing.T) {
	split := tinySplit(t, 20, "1p", "2p", "2in", "2u")
	m := tinyModel(t, gamma.UnionMoment)
	run := func(o Options) *Report {
		t.Helper()
		r, err := Run(context.Background(), m, split, o)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	a := run(Options{PerStructure: 6, Seed: 9, Structures: []string{"2u", "1p", "2in"}, Block: 2})
	b := run(Options{PerStructure: 6, Seed: 9, Structures: []string{"2in", "2U-dnf", "(e,(r,))"}, Block: 5})
	if ja, jb := jsonOf(t, a.Table), jsonOf(t, b.Table); ja != jb {
		t.Errorf("same sample differs:\n%s\n%s", ja, jb)
	}
	var names []string
	for _, row := range a.Table.Rows {
		names = append(names, row.Structure)
		if row.Queries != 6 {
			t.Errorf("%s: %d queries, want 6", row.Structure, row.Queries)
		}
	}
	if want := []string{"1p", "2u-DNF", "2in"}; !slices.Equal(names, want) {
		t.Errorf("rows %v, want %v", names, want)
	}
	if c := run(Options{PerStructure: 6, Seed: 10}); jsonOf(t, c.Table) == jsonOf(t, run(Options{PerStructure: 6, Seed: 9}).Table) {
		t.Error("seeds 9 and 10 drew the same sample")
	}
	if s := sample(20, 6, 9, "x"); !slices.IsSorted(s) || len(s) != 6 || !slices.Equal(s, sample(20, 6, 9, "x")) {
		t.Errorf("sample %v", s)
	}
	if s := sample(5, 8, 9, "x"); !slices.Equal(s, []int{0, 1, 2, 3, 4}) {
		t.Errorf("sample larger than the group: %v", s)
	}
	if _, err := Run(context.Background(), m, split, Options{Structures: []string{"3p"}}); err == nil || !strings.Contains(err.Error(), `"3p" not in the split`) {
		t.Errorf("missing structure: error %v", err)
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRunErrors(t *testing.T) {
	m := tinyModel(t, gamma.UnionMoment)
	bad := tinySplit(t, 3, "1p")
	g := bad.Groups[0]
	g.Append([]int32{1, 2}, []int32{entities + 5}, nil) // answer beyond the entities
	if _, err := Run(context.Background(), m, bad, Options{}); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("answer out of range: error %v", err)
	}
	badRel := tinySplit(t, 3, "2p")
	badRel.Groups[0].Append([]int32{1, 2, relations}, []int32{3}, nil)
	if _, err := Run(context.Background(), m, badRel, Options{}); err == nil || !strings.Contains(err.Error(), "relation id") {
		t.Errorf("relation out of range: error %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, m, tinySplit(t, 40, "1p", "2p"), Options{Block: 2}); err == nil {
		t.Error("canceled context: no error")
	}
}

func TestProgress(t *testing.T) {
	m := tinyModel(t, gamma.UnionMoment)
	split := tinySplit(t, 10, "1p", "2i")
	var seen []int
	_, err := Run(context.Background(), m, split, Options{Block: 3, Workers: 2, Progress: func(done, total int) {
		if total != 20 {
			t.Errorf("total %d, want 20", total)
		}
		seen = append(seen, done)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.IsSorted(seen) || seen[len(seen)-1] != 20 || len(seen) != 8 {
		t.Errorf("progress %v, want 8 increasing calls ending at 20", seen)
	}
}

// TestSharedAnchored checks that projecting the shared anchors once for
// the whole evaluation changes no result, and which anchors are shared.
func TestSharedAnchored(t *testing.T) {
	split := tinySplit(t, 30, allNames...)
	for _, union := range []gamma.Union{gamma.UnionMoment, gamma.UnionDNF, gamma.UnionMixture} {
		m := tinyModel(t, union)
		want, err := Run(context.Background(), m, split, Options{Block: 7, noShared: true})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Run(context.Background(), m, split, Options{Block: 7})
		if err != nil {
			t.Fatal(err)
		}
		if a, b := jsonOf(t, got.Table), jsonOf(t, want.Table); a != b {
			t.Errorf("%s: with the shared anchors\n%s\nwant\n%s", union, a, b)
		}
	}

	m := tinyModel(t, gamma.UnionMoment)
	g2i, err := dataset.NewGroup("((e,(r,)),(e,(r,)))")
	if err != nil {
		t.Fatal(err)
	}
	g2i.Append([]int32{1, 2, 3, 4}, []int32{0}, nil)
	g2i.Append([]int32{3, 4, 5, 0}, []int32{0}, nil)
	g2i.Append([]int32{3, 4, 1, relations}, []int32{0}, nil) // out of range: never shared
	g1p, err := dataset.NewGroup("(e,(r,))")
	if err != nil {
		t.Fatal(err)
	}
	g1p.Append([]int32{1, 2}, []int32{0}, nil)
	g1p.Append([]int32{1, relations}, []int32{0}, nil)
	g1p.Append([]int32{1, relations}, []int32{0}, nil)
	tasks, err := plan(m, &dataset.Split{Groups: []*dataset.Group{g2i, g1p}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []gamma.Anchored{{Entity: 3, Relation: 4}, {Entity: 1, Relation: 2}} // used 3 and 2 times
	if got := sharedAnchored(tasks, m.Config(), 10); !slices.Equal(got, want) {
		t.Errorf("shared anchors %v, want %v", got, want)
	}
	if got := sharedAnchored(tasks, m.Config(), 1); !slices.Equal(got, want[:1]) {
		t.Errorf("shared anchors, at most 1: %v, want %v", got, want[:1])
	}
}
