package answer

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gammae/gammae/exact"
	"github.com/gammae/gammae/gamma"
	"github.com/gammae/gammae/query"
	"github.com/gammae/gammae/serve"
)

// Every node of an explained query is answered as the query it heads: the
// same top answers as asking it alone, marked observed exactly where the
// exact executor finds them on the known graph.
func TestExplain(t *testing.T) {
	e := tinyEngine(t, gamma.UnionMoment)
	q, err := e.Parse("?y : (exists x . knows(ann, x) & likes(x, ?y)) & !lives(bob, ?y)")
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := e.Explain(context.Background(), q, 3)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(e.resolver.FormatTree(q), "\n"), "\n")
	if len(nodes) != len(lines) || len(nodes) != query.Count(q) {
		t.Fatalf("%d nodes for %d tree lines and %d query nodes", len(nodes), len(lines), query.Count(q))
	}
	for i, n := range nodes {
		if !strings.HasSuffix(lines[i], n.Node) {
			t.Errorf("node %d is %q, its tree line %q", i, n.Node, lines[i])
		}
		if _, anchor := n.Query.(query.Anchor); anchor {
			if n.Result != nil {
				t.Errorf("anchor %q answered", n.Node)
			}
			continue
		}
		if n.Result == nil || n.Error != "" {
			t.Fatalf("node %q: no answers (%s)", n.Node, n.Error)
		}
		checkResult(t, e, n.Query, 3, n.Result)
		obs, err := exact.Execute(e.kg.Test, n.Query)
		if err != nil {
			t.Fatal(err)
		}
		if n.Result.ObservedAnswers != obs.Len() {
			t.Errorf("node %q: %d observed answers, the graph has %d", n.Node, n.Result.ObservedAnswers, obs.Len())
		}
	}
	big := query.Node(query.Anchor{Entity: 0})
	for range MaxExplainNodes {
		big = query.Projection{Relation: 0, Arg: big}
	}
	if _, err := e.Explain(context.Background(), big, 3); err == nil || !strings.Contains(err.Error(), "at most 64") {
		t.Errorf("a %d-node query explained: %v", query.Count(big), err)
	}
}

// POST /v1/query with "explain": true returns every node's answers; the
// node limit is a clear 400.
func TestExplainHTTP(t *testing.T) {
	e := tinyEngine(t, gamma.UnionMoment)
	h := serve.New(e, serve.Options{}).Handler()
	post := func(body string) (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/query", strings.NewReader(body)))
		return rec.Code, rec.Body.String()
	}
	code, body := post(`{"query": "?y : exists x . knows(ann, x) & lives(x, ?y)", "k": 2, "explain": true}`)
	var res serve.Result
	if err := json.Unmarshal([]byte(body), &res); code != 200 || err != nil || len(res.Nodes) != 3 || res.Nodes[1].Node != "project knows  (#0 +knows)" || res.Nodes[1].ObservedAnswers != 2 || len(res.Nodes[1].Answers) != 2 {
		t.Errorf("explain: %d %s (%v)", code, body, err)
	}
	if len(res.Variables) != 1 || res.Variables[0].Name != "x" || res.Variables[0].ObservedAnswers != 2 || len(res.Variables[0].Answers) != 2 {
		t.Errorf("explain: variables %+v", res.Variables)
	}
	deep := "?y : " + strings.Repeat("p(", 70) + "ann" + strings.Repeat(", knows)", 70)
	deep = strings.TrimPrefix(deep, "?y : ")
	if code, body := post(`{"query": "` + deep + `", "explain": true}`); code != 400 || !strings.Contains(body, "at most 64") {
		t.Errorf("a 71-node query explained: %d %s", code, body)
	}
}

// A predicted answer of a chain gets a path through the variable's
// candidates with exactly one edge missing from the graph, named; an
// answer the graph already entails, or one two edges away, gets none.
func TestWhyPredicted(t *testing.T) {
	e := tinyEngine(t, gamma.UnionMoment)
	q, err := e.Parse("?y : exists x . knows(ann, x) & lives(x, ?y)") // ann knows bob, cat
	if err != nil {
		t.Fatal(err)
	}
	id := func(name string) int32 {
		for i, n := range e.kg.Entities.Names {
			if n == name {
				return int32(i)
			}
		}
		t.Fatalf("no entity %s", name)
		return -1
	}
	rel := func(name string) int32 {
		for i, n := range e.kg.Relations.Names {
			if n == name || n == "+"+name {
				return int32(i)
			}
		}
		t.Fatalf("no relation %s", name)
		return -1
	}
	knows, lives := rel("knows"), rel("lives")
	cands := [][]int32{{id("dan"), id("bob")}} // dan: ann does not know dan
	for _, tc := range []struct {
		y    string
		want []Hop // nil for no reason
	}{
		{"oslo", []Hop{{id("ann"), knows, id("dan"), false}, {id("dan"), lives, id("oslo"), true}}},
		{"lima", []Hop{{id("ann"), knows, id("bob"), true}, {id("bob"), lives, id("lima"), false}}},
		{"rome", nil}, // bob lives in rome: that path has no missing edge, dan's two
	} {
		why, ok := e.WhyPredicted(q, id(tc.y), cands)
		if ok != (tc.want != nil) || (ok && fmt.Sprint(why.Path) != fmt.Sprint(tc.want)) {
			t.Errorf("why %s: %v %+v, want %+v", tc.y, ok, why.Path, tc.want)
		}
		if ok && !strings.Contains(e.FormatWhy(why), "is not in the graph") {
			t.Errorf("why %s: %q", tc.y, e.FormatWhy(why))
		}
	}
	if _, ok := e.WhyPredicted(query.Intersection{Args: []query.Node{q, q}}, 0, cands); ok {
		t.Error("a reason for a query that is no chain")
	}
}
