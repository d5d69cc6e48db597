package answer

import (
	"fmt"
	"strings"

	"github.com/gammae/gammae/query"
)

// Hop is one edge of a path: (From, Relation, To), and whether the known
// graph has it.
type Hop struct {
	From, Relation, To int32
	Observed           bool
}

// Why is a reason for a predicted answer of a chain query: a path from the
// anchor through candidates of the intermediate variables to the answer
// on which every edge but one is in the known graph. The missing edge is
// what the model predicts.
type Why struct {
	Answer int32 `json:"answer"`
	Path   []Hop `json:"path"`
}

// chain returns the anchor and relations of a projection chain (1p, 2p,
// 3p, …), or false for any other shape.
func chain(q query.Node) (anchor int32, rels []int32, ok bool) {
	for {
		switch v := q.(type) {
		case query.Projection:
			rels = append([]int32{v.Relation}, rels...)
			q = v.Arg
		case query.Anchor:
			return v.Entity, rels, len(rels) > 0
		default:
			return 0, nil, false
		}
	}
}

// Explain's nodes of a chain are, in order, the last projection (the root)
// down to the anchor: nodes[i] for i = 1 … n−1 are the intermediate
// variables, nearest to the answer first.

// WhyPredicted finds, for answer y of the chain query q, a path through the
// intermediate variables' candidates (cands[j]: candidates of the j-th
// variable from the anchor) with exactly one edge missing from the known
// graph. It returns false when q is no chain or no such path exists.
func (e *Engine) WhyPredicted(q query.Node, y int32, cands [][]int32) (Why, bool) {
	a, rels, ok := chain(q)
	if !ok || len(cands) != len(rels)-1 {
		return Why{}, false
	}
	g := e.kg.Test
	path := make([]Hop, len(rels))
	var walk func(i int, from int32, missing int) bool
	walk = func(i int, from int32, missing int) bool {
		if i == len(rels)-1 {
			obs := g.HasEdge(from, rels[i], y)
			if missing+btoi(!obs) != 1 {
				return false
			}
			path[i] = Hop{from, rels[i], y, obs}
			return true
		}
		for _, x := range cands[i] {
			obs := g.HasEdge(from, rels[i], x)
			if m := missing + btoi(!obs); m <= 1 {
				path[i] = Hop{from, rels[i], x, obs}
				if walk(i+1, x, m) {
					return true
				}
			}
		}
		return false
	}
	if !walk(0, a, 0) {
		return Why{}, false
	}
	return Why{Answer: y, Path: path}, true
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// FormatWhy writes a path with names: "ann -knows-> bob -lives-> oslo;
// not in the graph: (bob, lives, oslo)".
func (e *Engine) FormatWhy(w Why) string {
	var b strings.Builder
	var miss string
	for i, h := range w.Path {
		if i == 0 {
			b.WriteString(e.entityName(h.From))
		}
		rel := e.resolver.RelationToken(h.Relation)
		fmt.Fprintf(&b, " -%s-> %s", rel, e.entityName(h.To))
		if !h.Observed {
			miss = fmt.Sprintf("(%s, %s, %s)", e.entityName(h.From), rel, e.entityName(h.To))
		}
	}
	fmt.Fprintf(&b, "; predicted: %s is not in the graph", miss)
	return b.String()
}

func (e *Engine) entityName(id int32) string {
	if l := labelOrEmpty(&e.kg.Entities, id); l != "" {
		return l
	}
	return e.kg.Entities.Name(id)
}
