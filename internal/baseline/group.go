package baseline

import (
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/gammae/gammae/query"
)

// Group is union-free queries of one structure, one per row of the values
// a tape records: a model embeds them together, so that each of its
// linear layers is one matrix product over the group.
type Group []query.Node

// Node is the group's node type at this level (all its queries share it).
func (g Group) Node() query.Node { return g[0] }

// Anchors are the anchor entities, one per row (an anchor level).
func (g Group) Anchors() []int32 {
	ids := make([]int32, len(g))
	for i, q := range g {
		ids[i] = q.(query.Anchor).Entity
	}
	return ids
}

// Relations are the projections' relations, one per row (a projection
// level).
func (g Group) Relations() []int32 {
	ids := make([]int32, len(g))
	for i, q := range g {
		ids[i] = q.(query.Projection).Relation
	}
	return ids
}

// Arg is the group of the projections' or negations' arguments.
func (g Group) Arg() Group {
	out := make(Group, len(g))
	for i, q := range g {
		switch q := q.(type) {
		case query.Projection:
			out[i] = q.Arg
		case query.Negation:
			out[i] = q.Arg
		default:
			panic(fmt.Sprintf("baseline: Arg of %T", q))
		}
	}
	return out
}

// Args are the groups of the intersections' arguments, in order.
func (g Group) Args() []Group {
	n := len(g[0].(query.Intersection).Args)
	out := make([]Group, n)
	for k := range out {
		out[k] = make(Group, len(g))
		for i, q := range g {
			out[k][i] = q.(query.Intersection).Args[k]
		}
	}
	return out
}

// signature is q's structure with the ids left out: queries with equal
// signatures are embedded as one group.
func signature(q query.Node) string {
	var b strings.Builder
	var walk func(query.Node)
	walk = func(n query.Node) {
		switch n := n.(type) {
		case query.Anchor:
			b.WriteByte('e')
		case query.Projection:
			b.WriteString("p(")
			walk(n.Arg)
			b.WriteByte(')')
		case query.Negation:
			b.WriteString("n(")
			walk(n.Arg)
			b.WriteByte(')')
		case query.Intersection:
			b.WriteString("i(")
			for _, a := range n.Args {
				walk(a)
				b.WriteByte(',')
			}
			b.WriteByte(')')
		case query.Union:
			b.WriteString("u(")
			for _, a := range n.Args {
				walk(a)
				b.WriteByte(',')
			}
			b.WriteByte(')')
		default:
			fmt.Fprintf(&b, "%T", n)
		}
	}
	walk(q)
	return b.String()
}

// Blocks runs f over the blocks [e0, e1) of a table's entity rows and,
// within each, every query row r: a block's terms stay in cache while all
// the rows use them (scoring a block of queries reads the table once).
func Blocks(entities, rows int, f func(r, e0, e1 int)) {
	const block = 16
	for e0 := 0; e0 < entities; e0 += block {
		e1 := min(e0+block, entities)
		for r := range rows {
			f(r, e0, e1)
		}
	}
}

// Range runs f over [0, n) split into GOMAXPROCS parts, one goroutine
// each (the entity-side tables the distances cache per step).
func Range(n int, f func(lo, hi int)) {
	k := max(1, min(runtime.GOMAXPROCS(0), n/1024))
	var wg sync.WaitGroup
	for c := range k {
		wg.Go(func() { f(c*n/k, (c+1)*n/k) })
	}
	wg.Wait()
}
