package query

import "testing"

func TestRewrites(t *testing.T) {
	a, b, c := Anchor{Entity: 1}, Anchor{Entity: 2}, Anchor{Entity: 3}
	up := Projection{Relation: 9, Arg: Union{Args: []Node{Projection{Relation: 4, Arg: a}, Projection{Relation: 5, Arg: b}}}}
	for _, tc := range []struct {
		name string
		q    Node
		dnf  []string
		dm   string
		neg  bool
	}{
		{"1p", Projection{Relation: 4, Arg: a}, []string{"(e,(r,))"}, "(e,(r,))", false},
		{"up", up, []string{"(e,(r,r))", "(e,(r,r))"}, "(((e,(r,n)),(e,(r,n))),(n,r))", false},
		{"2u∧1p", Intersection{Args: []Node{Union{Args: []Node{Projection{Relation: 4, Arg: a}, Projection{Relation: 5, Arg: b}}}, Projection{Relation: 6, Arg: c}}},
			[]string{"((e,(r,)),(e,(r,)))", "((e,(r,)),(e,(r,)))"}, "", false},
		{"¬2u", Negation{Arg: Union{Args: []Node{Projection{Relation: 4, Arg: a}, Projection{Relation: 5, Arg: b}}}}, []string{"((e,(r,n)),(e,(r,n)))"}, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bs := DNF(tc.q)
			if len(bs) != len(tc.dnf) {
				t.Fatalf("DNF gave %d branches, want %d", len(bs), len(tc.dnf))
			}
			for i, br := range bs {
				if got := Shape(br); got != tc.dnf[i] {
					t.Errorf("branch %d: %s, want %s", i, got, tc.dnf[i])
				}
			}
			if tc.dm != "" {
				if got := Shape(DeMorgan(tc.q)); got != tc.dm {
					t.Errorf("DeMorgan: %s, want %s", got, tc.dm)
				}
			}
			if got := HasNegation(tc.q); got != tc.neg {
				t.Errorf("HasNegation = %v", got)
			}
		})
	}
}

// rewriteCase is a structure and the shape a rewrite makes of it ("":
// the rewrite does not apply).
type rewriteCase struct{ name, want string }

// testRewrite checks a rewrite of the benchmark's structures: the shape
// it makes, or ok false and the query unchanged.
func testRewrite(t *testing.T, name string, rewrite func(Node) (Node, bool), cases []rewriteCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, _ := Lookup(tc.name)
			q, err := Template(st.Shape)
			if err != nil {
				t.Fatal(err)
			}
			r, ok := rewrite(q)
			switch {
			case ok != (tc.want != ""):
				t.Fatalf("%s ok = %v (%s)", name, ok, Shape(r))
			case ok && Shape(r) != tc.want:
				t.Errorf("%s = %s, want %s", name, Shape(r), tc.want)
			case !ok && Shape(r) != st.Shape:
				t.Errorf("%s changed a query it does not apply to: %s", name, Shape(r))
			}
		})
	}
}

func TestRelax(t *testing.T) {
	testRewrite(t, "Relax", Relax, []rewriteCase{
		{"2in", "(e,(r,))"},
		{"3in", "((e,(r,)),(e,(r,)))"},
		{"inp", "(e,(r,r))"},
		{"pin", "(e,(r,r))"},
		{"pni", "(e,(r,))"},
		{"1p", ""},
		{"2i", ""},
		{"up-DNF", ""},
		{"2u-DM", ""}, // ¬(¬A ∧ ¬B): no positive argument to keep
	})
	// A union whose branch has a negation relaxes that branch.
	a, b := Anchor{Entity: 1}, Anchor{Entity: 2}
	u := Union{Args: []Node{Projection{Relation: 3, Arg: a}, Intersection{Args: []Node{Projection{Relation: 4, Arg: a}, Negation{Arg: Projection{Relation: 5, Arg: b}}}}}}
	if r, ok := Relax(u); !ok || Shape(r) != "((e,(r,)),(e,(r,)),(u,))" {
		t.Errorf("Relax(union) = %s, %v", Shape(r), ok)
	}
}

func TestLoosen(t *testing.T) {
	testRewrite(t, "Loosen", Loosen, []rewriteCase{
		{"2i", "((e,(r,)),(e,(r,)),(u,))"},
		{"3i", "((e,(r,)),(e,(r,)),(e,(r,)),(u,))"},
		{"pi", "((e,(r,r)),(e,(r,)),(u,))"},
		{"ip", "(((e,(r,)),(e,(r,)),(u,)),(r,))"},
		{"1p", ""},
		{"3p", ""},
		{"2u-DNF", ""},
		{"up-DNF", ""},
		{"2in", ""}, // Relax's
		{"pni", ""},
	})
	// An intersection inside a union's branch is loosened, the union kept.
	a, b := Anchor{Entity: 1}, Anchor{Entity: 2}
	u := Union{Args: []Node{Projection{Relation: 3, Arg: a}, Intersection{Args: []Node{Projection{Relation: 4, Arg: a}, Projection{Relation: 5, Arg: b}}}}}
	if r, ok := Loosen(u); !ok || Shape(r) != "((e,(r,)),((e,(r,)),(e,(r,)),(u,)),(u,))" {
		t.Errorf("Loosen(union) = %s, %v", Shape(r), ok)
	}
}
