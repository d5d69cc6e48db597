package exact

import (
	"fmt"
	"math/bits"

	"github.com/gammae/gammae/kg"
	"github.com/gammae/gammae/query"
)

// scanPerLookup is what one per-element lookup (a binary search in the
// element's edges, mostly cache misses) costs in scanned edges.
const scanPerLookup = 32

// Execute returns the answers of q on g. It fails on ids out of range.
func Execute(g *kg.Graph, q query.Node) (Set, error) {
	switch v := q.(type) {
	case query.Anchor:
		if v.Entity < 0 || int(v.Entity) >= g.N {
			return Set{}, fmt.Errorf("anchor entity %d out of range [0,%d)", v.Entity, g.N)
		}
		s := NewSet(g.N)
		s.Add(v.Entity)
		return s, nil
	case query.Projection:
		if v.Relation < 0 || int(v.Relation) >= g.R {
			return Set{}, fmt.Errorf("relation %d out of range [0,%d)", v.Relation, g.R)
		}
		in, err := Execute(g, v.Arg)
		if err != nil {
			return Set{}, err
		}
		return project(g, in, v.Relation), nil
	case query.Negation:
		s, err := Execute(g, v.Arg)
		if err != nil {
			return Set{}, err
		}
		s.not()
		return s, nil
	case query.Intersection:
		return combine(g, v.Args, Set.and)
	case query.Union:
		return combine(g, v.Args, Set.or)
	case nil:
		return Set{}, fmt.Errorf("empty query")
	}
	return Set{}, fmt.Errorf("unknown query node %T", q)
}

func combine(g *kg.Graph, args []query.Node, op func(Set, Set)) (Set, error) {
	if len(args) == 0 {
		return Set{}, fmt.Errorf("intersection or union without arguments")
	}
	acc, err := Execute(g, args[0])
	if err != nil {
		return Set{}, err
	}
	for _, a := range args[1:] {
		s, err := Execute(g, a)
		if err != nil {
			return Set{}, err
		}
		op(acc, s)
	}
	return acc, nil
}

// project follows r from every element of in: by a lookup per element, or,
// when in is large against r's edges (a hub's neighbours, a negation), by
// one pass over r's edges testing their heads.
func project(g *kg.Graph, in Set, r int32) Set {
	if heads, tails := g.RelationEdges(r); len(heads) < scanPerLookup*in.Len() {
		return projectScan(g.N, in, heads, tails)
	}
	return projectLookup(g, in, r)
}

// projectScan follows the edges (heads[i], tails[i]) whose head is in in.
func projectScan(n int, in Set, heads, tails []int32) Set {
	out := NewSet(n)
	for i, h := range heads {
		if in.Has(h) {
			out.Add(tails[i])
		}
	}
	return out
}

func projectLookup(g *kg.Graph, in Set, r int32) Set {
	out := NewSet(g.N)
	for i, w := range in.words {
		for w != 0 {
			b := bits.TrailingZeros64(w)
			for _, t := range g.Tails(int32(i*64+b), r) {
				out.Add(t)
			}
			w &= w - 1
		}
	}
	return out
}
