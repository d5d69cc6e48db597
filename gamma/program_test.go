package gamma

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gammae/gammae/query"
)

func TestCompile(t *testing.T) {
	cases := []struct {
		shape      string
		mode       Union
		components int
		unions     int // moment union instructions
		negations  int
	}{
		{"(e,(r,r,r))", UnionMoment, 1, 0, 0},
		{"((e,(r,)),(e,(r,)),(u,))", UnionMoment, 1, 1, 0},
		{"((e,(r,)),(e,(r,)),(u,))", UnionDNF, 2, 0, 0},
		{"((e,(r,)),(e,(r,)),(u,))", UnionMixture, 2, 0, 0},
		{"((e,(r,)),(e,(r,)),(u,))", UnionDM, 1, 0, 3},
		{"(((e,(r,)),(e,(r,)),(u,)),(r,))", UnionDNF, 2, 0, 0},
		// Intersection distributes: (a ∨ b) ∧ (c ∨ d ∨ e) has 6 branches.
		{"(((e,(r,)),(e,(r,)),(u,)),((e,(r,)),(e,(r,)),(e,(r,)),(u,)))", UnionDNF, 6, 0, 0},
		// ¬(a ∨ b) = ¬a ∧ ¬b: one branch.
		{"(((e,(r,)),(e,(r,)),(u,)),(n,))", UnionDNF, 1, 0, 2},
		{"(((e,(r,n)),(e,(r,n))),(n,r))", UnionDNF, 1, 0, 3},
	}
	for _, c := range cases {
		p := mustCompile(t, c.shape, c.mode)
		tmpl := mustTemplate(t, c.shape)
		unions, negs := 0, 0
		for _, in := range p.instrs {
			switch in.kind {
			case opUnion:
				unions++
			case opNegate:
				negs++
			}
		}
		if p.Components() != c.components || unions != c.unions || negs != c.negations {
			t.Errorf("%s %s: %d components, %d unions, %d negations; want %d, %d, %d",
				c.shape, c.mode, p.Components(), unions, negs, c.components, c.unions, c.negations)
		}
		if p.Slots() != query.NumSlots(tmpl) {
			t.Errorf("%s: %d slots, want %d", c.shape, p.Slots(), query.NumSlots(tmpl))
		}
	}
}

func TestCompileErrors(t *testing.T) {
	cases := []struct {
		name string
		q    query.Node
		mode Union
	}{
		{"one-argument intersection", query.Intersection{Args: []query.Node{query.Anchor{}}}, UnionMoment},
		{"one-argument union", query.Union{Args: []query.Node{query.Anchor{}}}, UnionDNF},
		{"nil", nil, UnionMoment},
		{"nil inside", query.Projection{Arg: nil}, UnionMoment},
		{"unknown mode", query.Anchor{}, "sum"},
	}
	for _, c := range cases {
		if _, err := Compile(c.q, c.mode); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

func TestBadInput(t *testing.T) {
	if _, err := New[float64](tinyConfig(UnionMoment), nil); err == nil {
		t.Error("New with a nil random source: no error")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	m, err := New[float64](tinyConfig(UnionMoment), rng)
	if err != nil {
		t.Fatal(err)
	}
	good := func() *Batch { return randomBatch(t, m, []string{"(e,(r,))"}, 2, 3, rand.New(rand.NewPCG(3, 4))) }
	dnf, _ := Compile(query.Anchor{}, UnionDNF)
	cases := []struct {
		name string
		edit func(*Batch)
	}{
		{"entity id", func(b *Batch) { b.Groups[0].IDs[0] = 99 }},
		{"negative relation id", func(b *Batch) { b.Groups[0].IDs[1] = -1 }},
		{"ragged ids", func(b *Batch) { b.Groups[0].IDs = b.Groups[0].IDs[:3] }},
		{"positives", func(b *Batch) { b.Positive = b.Positive[:1] }},
		{"negatives", func(b *Batch) { b.Negative = b.Negative[:5] }},
		{"no negatives", func(b *Batch) { b.Negatives = 0 }},
		{"candidate id", func(b *Batch) { b.Negative[2] = 9 }},
		{"weight", func(b *Batch) { b.Weight[1] = math.NaN() }},
		{"no program", func(b *Batch) { b.Groups[0].Program = nil }},
		{"mode", func(b *Batch) { b.Groups[0].Program = dnf }},
		{"empty", func(b *Batch) { *b = Batch{Negatives: 1} }},
	}
	ws := m.NewWorkspace()
	for _, c := range cases {
		b := good()
		c.edit(b)
		if _, err := ws.Forward(b, nil); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	if err := ws.Backward(); err == nil {
		t.Error("Backward without Forward: no error")
	}
	if _, err := ws.Forward(good(), nil); err != nil {
		t.Fatal(err)
	}
	if err := ws.Backward(); err != nil {
		t.Fatal(err)
	}
	if err := ws.Backward(); err == nil {
		t.Error("second Backward: no error")
	}
	// An empty group, and a program serving two groups, are fine.
	b := good()
	b.Groups = append(b.Groups, Group{Program: b.Groups[0].Program})
	b.Groups = append(b.Groups, b.Groups[0])
	b.Positive = append(b.Positive, b.Positive...)
	b.Negative = append(b.Negative, b.Negative...)
	b.Weight = append(b.Weight, b.Weight...)
	if _, err := ws.Forward(b, nil); err != nil {
		t.Fatal(err)
	}
	if err := ws.Backward(); err != nil {
		t.Fatal(err)
	}
	cfg := tinyConfig(UnionMoment)
	cfg.UnionDropout = 0.1
	md, _ := New[float64](cfg, rng)
	if _, err := md.NewWorkspace().Forward(randomBatch(t, md, []string{"(e,(r,))"}, 1, 1, rng), nil); err == nil {
		t.Error("dropout without a random source: no error")
	}
}
