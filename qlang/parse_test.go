package qlang

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gammae/gammae/query"
)

// Every benchmark structure written in the logic form, in the functional
// form and as a grounded tuple parses to the same tree of that shape.
func TestStructures(t *testing.T) {
	tests := []struct {
		name, logic, functional string
		ids                     []int32 // query.Slots order, for the tuple form
	}{
		{"1p", `?y : won(Oscar, ?y)`, `p(Oscar, won)`,
			[]int32{eOscar, rWon}},
		{"2p", `?y : exists x . won(Oscar, x) & nationality(x, ?y)`, `p(p(Oscar, won), nationality)`,
			[]int32{eOscar, rWon, rNationality}},
		{"3p", `?y : exists x, z . won(Oscar, x) & nationality(x, z) & field(z, ?y)`, `p(Oscar, won, nationality, field)`,
			[]int32{eOscar, rWon, rNationality, rField}},
		{"2i", `?y : won(Oscar, ?y) & field(Physics, ?y)`, `i(p(Oscar, won), p(Physics, field))`,
			[]int32{eOscar, rWon, ePhysics, rField}},
		{"3i", `?y : won(Oscar, ?y) and field(Physics, ?y) and nationality(Germany, ?y)`, `i(p(Oscar, won), p(Physics, field), p(Germany, nationality))`,
			[]int32{eOscar, rWon, ePhysics, rField, eGermany, rNationality}},
		{"pi", `?y : exists x . won(Oscar, x) & nationality(x, ?y) & field(Physics, ?y)`, `i(p(p(Oscar, won), nationality), p(Physics, field))`,
			[]int32{eOscar, rWon, rNationality, ePhysics, rField}},
		{"ip", `?y : exists x . won(Oscar, x) & field(Physics, x) & nationality(x, ?y)`, `p(i(p(Oscar, won), p(Physics, field)), nationality)`,
			[]int32{eOscar, rWon, ePhysics, rField, rNationality}},
		{"2u-DNF", `?y : won(Oscar, ?y) | field(Physics, ?y)`, `u(p(Oscar, won), p(Physics, field))`,
			[]int32{eOscar, rWon, ePhysics, rField}},
		{"up-DNF", `?y : exists x . (won(Oscar, x) ∨ field(Physics, x)) ∧ nationality(x, ?y)`, `p(u(p(Oscar, won), p(Physics, field)), nationality)`,
			[]int32{eOscar, rWon, ePhysics, rField, rNationality}},
		{"2in", `?y : won(Oscar, ?y) & !field(Physics, ?y)`, `i(p(Oscar, won), n(p(Physics, field)))`,
			[]int32{eOscar, rWon, ePhysics, rField}},
		{"3in", `?y : won(Oscar, ?y) && nationality(Germany, ?y) && not field(Physics, ?y)`, `i(p(Oscar, won), p(Germany, nationality), n(p(Physics, field)))`,
			[]int32{eOscar, rWon, eGermany, rNationality, ePhysics, rField}},
		{"inp", `?y : ∃x. won(Oscar, x) & ¬field(Physics, x) & nationality(x, ?y)`, `p(i(p(Oscar, won), n(p(Physics, field))), nationality)`,
			[]int32{eOscar, rWon, ePhysics, rField, rNationality}},
		{"pin", `?y : exists x . won(Oscar, x) & nationality(x, ?y) & !field(Physics, ?y)`, `i(p(p(Oscar, won), nationality), n(p(Physics, field)))`,
			[]int32{eOscar, rWon, rNationality, ePhysics, rField}},
		{"pni", `?y : !(exists x . won(Oscar, x) & nationality(x, ?y)) & field(Physics, ?y)`, `i(n(p(p(Oscar, won), nationality)), p(Physics, field))`,
			[]int32{eOscar, rWon, rNationality, ePhysics, rField}},
		{"2u-DM", `?y : !(!won(Oscar, ?y) & !field(Physics, ?y))`, `n(i(n(p(Oscar, won)), n(p(Physics, field))))`,
			[]int32{eOscar, rWon, ePhysics, rField}},
		{"up-DM", `?y : exists x . !(!won(Oscar, x) & !field(Physics, x)) & nationality(x, ?y)`, `p(n(i(n(p(Oscar, won)), n(p(Physics, field)))), nationality)`,
			[]int32{eOscar, rWon, ePhysics, rField, rNationality}},
	}
	if len(tests) != len(query.Structures) {
		t.Fatalf("%d cases for %d structures", len(tests), len(query.Structures))
	}
	r := testResolver()
	for _, tc := range tests {
		st, ok := query.Lookup(tc.name)
		if !ok {
			t.Fatalf("no structure %s", tc.name)
		}
		tmpl, err := query.Template(st.Shape)
		if err != nil {
			t.Fatal(err)
		}
		want, err := query.Fill(tmpl, tc.ids)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		tup, err := query.ToTuple(want)
		if err != nil {
			t.Fatal(err)
		}
		for _, src := range []string{tc.logic, tc.functional, query.FormatTuple(tup)} {
			got, err := Parse(src, r)
			if err != nil {
				t.Errorf("%s: Parse(%s): %v", tc.name, src, err)
				continue
			}
			if s := query.Shape(got); s != st.Shape {
				t.Errorf("%s: Parse(%s) has shape %s, want %s", tc.name, src, s, st.Shape)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: Parse(%s) = %#v, want %#v", tc.name, src, got, want)
			}
		}
	}
}

func proj(r int32, arg query.Node) query.Node { return query.Projection{Relation: r, Arg: arg} }
func anchor(e int32) query.Node               { return query.Anchor{Entity: e} }

// Queries whose trees are written out by hand: inverses, the ways of naming
// entities and relations, variables, the examples.
func TestParse(t *testing.T) {
	spielbergFilms := proj(rDirected+1, anchor(eSpielberg))
	tests := []struct {
		src  string
		want query.Node
	}{
		// Direction: directed_by(film, person) is film -directed_by-> person.
		{`?y : directed_by(?y, "Steven Spielberg")`, spielbergFilms},
		{`?y : -directed_by("Steven Spielberg", ?y)`, spielbergFilms},
		{`?y : directed_by(Jaws, ?y)`, proj(rDirected, anchor(eJaws))},
		{`p("Steven Spielberg", -directed_by)`, spielbergFilms},
		{`p("Steven Spielberg", -/film/film/directed_by)`, spielbergFilms},
		{`p(/m/01, #1)`, spielbergFilms},
		{`p(#0, "-/film/film/directed_by")`, spielbergFilms},
		{`(0,(1,))`, spielbergFilms},
		// Entity spellings.
		{`p(Steven_Spielberg, -directed_by)`, spielbergFilms},
		{`p('Steven Spielberg', -directed_by)`, spielbergFilms},
		{`p("Steven\u0020Spielberg", -directed_by)`, spielbergFilms},
		{`p(STEVEN_SPIELBERG, -Directed_By)`, spielbergFilms},
		{`p(00260881, won)`, proj(rWon, anchor(eSynset))},
		{`p("52.2,11.2", won)`, proj(rWon, anchor(eLatLong))},
		{`p(x, won)`, proj(rWon, anchor(eX))},
		{`p("and", won)`, proj(rWon, anchor(eAnd))},
		{`p(/m/07, won)`, proj(rWon, anchor(eAlbany1))},
		// Relation spellings.
		{`p(Oscar, /award/won)`, proj(rWon, anchor(eOscar))},
		{`p(Oscar, award/won)`, proj(rWon, anchor(eOscar))},
		{`p(Oscar, award_honor/award_winner)`, proj(rAward, anchor(eOscar))},
		{`p(Oscar, award_winner)`, proj(rAward, anchor(eOscar))},
		{`p(Oscar, intergovorgs)`, proj(rIntergov, anchor(eOscar))},
		{`p(Oscar, -intergovorgs)`, proj(rIntergov+1, anchor(eOscar))},
		{`p(Oscar, teamplaysagainstteam)`, proj(rTeam, anchor(eOscar))},
		{`p(Oscar, -teamplaysagainstteam)`, proj(rTeam+1, anchor(eOscar))},
		{`p(Oscar, teamplaysagainstteam_reverse)`, proj(rTeam+1, anchor(eOscar))},
		{`p(Oscar, concept:teamplaysagainstteam)`, proj(rTeam, anchor(eOscar))},
		{`p(Oscar, hypernym)`, proj(rHypernym, anchor(eOscar))},
		{`p(Oscar, -hypernym)`, proj(rHypernym+1, anchor(eOscar))},
		{`p(Oscar, film/country)`, proj(rFilmCountry, anchor(eOscar))},
		// Variables: bare names declared by exists, ?names, the answer bare.
		{`?y : exists x . won(Oscar, x) & nationality(x, y)`, proj(rNationality, proj(rWon, anchor(eOscar)))},
		{`?y : won(Oscar, ?x) & nationality(?x, ?y)`, proj(rNationality, proj(rWon, anchor(eOscar)))},
		{`?y : won(x, ?y)`, proj(rWon, anchor(eX))},                                      // x undeclared: the entity x
		{`?y : exists x . won("x", x) & won(x, ?y)`, proj(rWon, proj(rWon, anchor(eX)))}, // quoted: the entity
		{`?y:exists x.won(Oscar,x)&nationality(x,?y)`, proj(rNationality, proj(rWon, anchor(eOscar)))},
		{`?y : exists x:won(Oscar, x) & nationality(x, ?y)`, proj(rNationality, proj(rWon, anchor(eOscar)))},
		{`?y : EXISTS x . won(Oscar, x) AND nationality(x, ?y) OR NOT won(Jaws, ?y)`, query.Union{Args: []query.Node{
			proj(rNationality, proj(rWon, anchor(eOscar))), query.Negation{Arg: proj(rWon, anchor(eJaws))}}}},
		{"?film :\n\texists person .\n\t\twon(Oscar, person) &\n\t\tdirected_by(?film, person)", proj(rDirected+1, proj(rWon, anchor(eOscar)))},
		// The examples.
		{`?y : exists x . award_winner("Nobel Prize", x) & nationality(x, Germany) & field(x, ?y)`,
			proj(rField, query.Intersection{Args: []query.Node{proj(rAward, anchor(eNobel)), proj(rNationality+1, anchor(eGermany))}})},
		{`?y : (directed_by(?y, Steven_Spielberg) | directed_by(?y, George_Lucas)) & !won(?y, Oscar)`,
			query.Intersection{Args: []query.Node{
				query.Union{Args: []query.Node{proj(rDirected+1, anchor(eSpielberg)), proj(rDirected+1, anchor(eLucas))}},
				query.Negation{Arg: proj(rWon+1, anchor(eOscar))},
			}}},
		{`i(p("Nobel Prize", award_winner), n(p(Physics, field)))`,
			query.Intersection{Args: []query.Node{proj(rAward, anchor(eNobel)), query.Negation{Arg: proj(rField, anchor(ePhysics))}}}},
		// Grouping: & binds tighter than |, parentheses flatten at one variable.
		{`?y : won(Oscar, ?y) & field(Physics, ?y) | nationality(Germany, ?y)`,
			query.Union{Args: []query.Node{
				query.Intersection{Args: []query.Node{proj(rWon, anchor(eOscar)), proj(rField, anchor(ePhysics))}},
				proj(rNationality, anchor(eGermany)),
			}}},
		{`?y : (won(Oscar, ?y) & field(Physics, ?y)) & nationality(Germany, ?y)`,
			query.Intersection{Args: []query.Node{proj(rWon, anchor(eOscar)), proj(rField, anchor(ePhysics)), proj(rNationality, anchor(eGermany))}}},
		{`?y : !!won(Oscar, ?y)`, query.Negation{Arg: query.Negation{Arg: proj(rWon, anchor(eOscar))}}},
		// A disjunction per branch, deeper trees.
		{`?y : exists x . nationality(x, ?y) & (won(Oscar, x) | won(Jaws, x)) & field(Physics, x)`,
			proj(rNationality, query.Intersection{Args: []query.Node{
				query.Union{Args: []query.Node{proj(rWon, anchor(eOscar)), proj(rWon, anchor(eJaws))}},
				proj(rField, anchor(ePhysics)),
			}})},
		{`?y : exists a, b, c . won(Oscar, a) & field(a, b) & field(Physics, c) & nationality(b, ?y) & nationality(c, ?y)`,
			query.Intersection{Args: []query.Node{
				proj(rNationality, proj(rField, proj(rWon, anchor(eOscar)))),
				proj(rNationality, proj(rField, anchor(ePhysics))),
			}}},
		// Innermost quantification: the negation may enclose the branch.
		{`?y : exists x . !(won(Oscar, x) & nationality(x, ?y)) & field(Physics, ?y)`,
			query.Intersection{Args: []query.Node{query.Negation{Arg: proj(rNationality, proj(rWon, anchor(eOscar)))}, proj(rField, anchor(ePhysics))}}},
	}
	r := testResolver()
	for _, tc := range tests {
		got, err := Parse(tc.src, r)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.src, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Parse(%q)\n got %#v\nwant %#v", tc.src, got, tc.want)
		}
	}
}

// A query's size is bounded: the 40,000-atom intersection is
// refused at once with a clear error; one just under the bound is answered.
func TestMaxNodes(t *testing.T) {
	r := testResolver()
	atom := "field(Physics, ?y)"
	for _, tc := range []struct {
		atoms int
		ok    bool
	}{{MaxNodes / 3, true}, {40000, false}} {
		src := "?y : " + strings.TrimSuffix(strings.Repeat(atom+" & ", tc.atoms), " & ")
		_, err := Parse(src, r)
		if tc.ok != (err == nil) || (err != nil && !strings.Contains(err.Error(), "at most 1000")) {
			t.Errorf("%d atoms: error %v", tc.atoms, err)
		}
	}
}

func TestParseVariables(t *testing.T) {
	r := testResolver()
	for _, tc := range []struct {
		src  string
		want []string // variable: shape of its tree
	}{
		{"?y : exists x, z . won(Oscar, x) & nationality(x, z) & field(z, ?y)", []string{"x:(e,(r,))", "z:(e,(r,r))"}},
		{"?y : field(Physics, ?y)", nil},
		{"p(Oscar, won)", nil},
		{"?y : exists x . !(won(Oscar, x) & nationality(x, ?y)) & field(Physics, ?y)", []string{"x:(e,(r,))"}},
	} {
		_, vars, err := ParseVariables(tc.src, r)
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		var got []string
		for _, v := range vars {
			got = append(got, v.Name+":"+query.Shape(v.Tree))
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%s: variables %v, want %v", tc.src, got, tc.want)
		}
	}
}
