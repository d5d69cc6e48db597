package exact

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gammae/gammae/kg"
	"github.com/gammae/gammae/query"
)

// naive executes q by scanning the triple list with map sets.
func naive(n int, triples []kg.Triple, q query.Node) map[int32]bool {
	out := map[int32]bool{}
	switch v := q.(type) {
	case query.Anchor:
		out[v.Entity] = true
	case query.Projection:
		in := naive(n, triples, v.Arg)
		for _, t := range triples {
			if t.R == v.Relation && in[t.H] {
				out[t.T] = true
			}
		}
	case query.Negation:
		in := naive(n, triples, v.Arg)
		for e := int32(0); e < int32(n); e++ {
			if !in[e] {
				out[e] = true
			}
		}
	case query.Intersection:
		first := naive(n, triples, v.Args[0])
		for e := range first {
			all := true
			for _, a := range v.Args[1:] {
				if !naive(n, triples, a)[e] {
					all = false
				}
			}
			if all {
				out[e] = true
			}
		}
	case query.Union:
		for _, a := range v.Args {
			for e := range naive(n, triples, a) {
				out[e] = true
			}
		}
	}
	return out
}

func randomTree(r *rand.Rand, n, nr, depth int) query.Node {
	if depth == 0 {
		return query.Anchor{Entity: int32(r.IntN(n))}
	}
	switch r.IntN(5) {
	case 0:
		return query.Anchor{Entity: int32(r.IntN(n))}
	case 1, 2:
		return query.Projection{Relation: int32(r.IntN(nr)), Arg: randomTree(r, n, nr, depth-1)}
	case 3:
		return query.Negation{Arg: randomTree(r, n, nr, depth-1)}
	}
	args := make([]query.Node, 2+r.IntN(2))
	for i := range args {
		args[i] = randomTree(r, n, nr, depth-1)
	}
	if r.IntN(2) == 0 {
		return query.Union{Args: args}
	}
	return query.Intersection{Args: args}
}

func sortedKeys(m map[int32]bool) []int32 {
	out := make([]int32, 0, len(m))
	for e := range m {
		out = append(out, e)
	}
	slices.Sort(out)
	return out
}

// TestExecuteMatchesNaive compares the bitset executor with map sets on
// random trees of every operator.
func TestExecuteMatchesNaive(t *testing.T) {
	g := loadTiny(t)
	gr := g.graphs["test"]
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		q := randomTree(r, gr.N, gr.R, 4)
		s, err := Execute(gr, q)
		if err != nil {
			t.Fatal(err)
		}
		want := sortedKeys(naive(gr.N, g.triples, q))
		if got := s.Slice(); !slices.Equal(got, want) {
			t.Fatalf("query %#v: got %v, want %v", q, got, want)
		}
		if s.Len() != len(want) || s.Universe() != gr.N {
			t.Fatalf("query %#v: Len %d Universe %d, want %d %d", q, s.Len(), s.Universe(), len(want), gr.N)
		}
	}
}

// TestProjectStrategies: the lookup per element and the scan of the
// relation's edges give the same set, for every relation and for input sets
// from a single entity to all of them (Execute picks one by size).
func TestProjectStrategies(t *testing.T) {
	g := loadTiny(t)
	gr := g.graphs["test"]
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 300; i++ {
		in := NewSet(gr.N)
		p := []float64{0, 0.01, 0.2, 1}[i%4]
		for e := range int32(gr.N) {
			if r.Float64() < p {
				in.Add(e)
			}
		}
		in.Add(int32(r.IntN(gr.N)))
		for rel := range int32(gr.R) {
			heads, tails := gr.RelationEdges(rel)
			a, b := projectLookup(gr, in, rel), projectScan(gr.N, in, heads, tails)
			if !slices.Equal(a.Slice(), b.Slice()) {
				t.Fatalf("relation %d from %v: lookup %v, scan %v", rel, in.Slice(), a.Slice(), b.Slice())
			}
		}
	}
}

// TestDNFEqualsDM grounds the DNF and De Morgan forms of 2u and up with the
// same slot ids (both list e1 r1 e2 r2 [r3]) and checks equal answers; and
// checks De Morgan's law on random sub-queries.
func TestDNFEqualsDM(t *testing.T) {
	g := loadTiny(t)
	r := rand.New(rand.NewPCG(3, 4))
	pairs := [][2]string{{"2u-DNF", "2u-DM"}, {"up-DNF", "up-DM"}}
	nonEmpty := 0
	for _, name := range []string{"train", "test"} {
		gr := g.graphs[name]
		for _, p := range pairs {
			dnf := template(t, p[0])
			dm := template(t, p[1])
			if query.NumSlots(dnf) != query.NumSlots(dm) {
				t.Fatalf("%s and %s have different slot counts", p[0], p[1])
			}
			for i := 0; i < 300; i++ {
				ids := []int32{int32(r.IntN(gr.N)), int32(r.IntN(gr.R)), int32(r.IntN(gr.N)), int32(r.IntN(gr.R)), int32(r.IntN(gr.R))}[:query.NumSlots(dnf)]
				a := execute(t, gr, fill(t, dnf, ids))
				b := execute(t, gr, fill(t, dm, ids))
				if !a.Equal(b) {
					t.Fatalf("%s %v: DNF %v, DM %v", name, ids, a.Slice(), b.Slice())
				}
				if a.Len() > 0 {
					nonEmpty++
				}
			}
		}
		for i := 0; i < 500; i++ {
			x, y := randomTree(r, gr.N, gr.R, 3), randomTree(r, gr.N, gr.R, 3)
			u := execute(t, gr, query.Union{Args: []query.Node{x, y}})
			dm := execute(t, gr, query.Negation{Arg: query.Intersection{Args: []query.Node{query.Negation{Arg: x}, query.Negation{Arg: y}}}})
			if !u.Equal(dm) {
				t.Fatalf("%#v | %#v: union %v, De Morgan %v", x, y, u.Slice(), dm.Slice())
			}
		}
	}
	if nonEmpty < 50 {
		t.Errorf("only %d random unions had answers: the test exercises little", nonEmpty)
	}
}

func template(t *testing.T, name string) query.Node {
	st, ok := query.Lookup(name)
	if !ok {
		t.Fatalf("no structure %s", name)
	}
	q, err := query.Template(st.Shape)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func fill(t *testing.T, tmpl query.Node, ids []int32) query.Node {
	q, err := query.Fill(tmpl, ids)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func execute(t *testing.T, g *kg.Graph, q query.Node) Set {
	s, err := Execute(g, q)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestExecuteErrors(t *testing.T) {
	g := loadTiny(t).graphs["test"]
	for _, c := range []struct {
		name string
		q    query.Node
	}{
		{"nil", nil},
		{"entity too big", query.Anchor{Entity: int32(g.N)}},
		{"negative entity", query.Anchor{Entity: -1}},
		{"relation too big", query.Projection{Relation: int32(g.R), Arg: query.Anchor{}}},
		{"empty intersection", query.Intersection{}},
		{"bad leaf inside union", query.Union{Args: []query.Node{query.Anchor{}, query.Anchor{Entity: 99}}}},
	} {
		if _, err := Execute(g, c.q); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}
