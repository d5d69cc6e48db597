// Package kg holds knowledge graphs: entity and relation dictionaries and the
// three nested graphs (train ⊂ valid ⊂ test) of a benchmark, with compressed
// adjacency for fast neighbour lookups.
package kg

import (
	"fmt"
	"slices"
	"sync/atomic"
)

// Triple is one edge (head, relation, tail) in id space.
type Triple struct{ H, R, T int32 }

// Adjacency is a compressed sparse row index of edges grouped by a source
// entity and sorted by (relation, neighbour) within each source.
type Adjacency struct {
	Off []int32 // len N+1: edges of entity e are [Off[e], Off[e+1])
	Rel []int32 // relation of each edge
	Nbr []int32 // neighbour of each edge
}

// Graph is an immutable multi-relational graph over N entities and R
// relations (inverse relations included, forward 2k and inverse 2k+1).
type Graph struct {
	N, R int
	Out  Adjacency // edges by head: Nbr holds tails
	In   Adjacency // edges by tail: Nbr holds heads

	byRel atomic.Pointer[relEdges] // RelationEdges' index, built on first use
}

// relEdges is the edges grouped by relation: those of r are
// [off[r], off[r+1]) of head and tail, sorted by (head, tail).
type relEdges struct {
	off        []int32
	head, tail []int32
}

// NewGraph builds a graph from triples; duplicate triples are kept once.
// Every id must be in range.
func NewGraph(n, r int, triples []Triple) (*Graph, error) {
	for i, t := range triples {
		if t.H < 0 || int(t.H) >= n || t.T < 0 || int(t.T) >= n {
			return nil, fmt.Errorf("triple %d (%d,%d,%d): entity out of range [0,%d)", i, t.H, t.R, t.T, n)
		}
		if t.R < 0 || int(t.R) >= r {
			return nil, fmt.Errorf("triple %d (%d,%d,%d): relation out of range [0,%d)", i, t.H, t.R, t.T, r)
		}
	}
	g := &Graph{N: n, R: r}
	g.Out = buildAdjacency(n, triples, func(t Triple) (int32, int32) { return t.H, t.T })
	g.In = buildAdjacency(n, triples, func(t Triple) (int32, int32) { return t.T, t.H })
	return g, nil
}

func buildAdjacency(n int, triples []Triple, ends func(Triple) (src, dst int32)) Adjacency {
	count := make([]int32, n+1)
	for _, t := range triples {
		s, _ := ends(t)
		count[s+1]++
	}
	for i := 1; i <= n; i++ {
		count[i] += count[i-1]
	}
	off := slices.Clone(count)
	rel := make([]int32, len(triples))
	nbr := make([]int32, len(triples))
	for _, t := range triples {
		s, d := ends(t)
		p := count[s]
		rel[p], nbr[p] = t.R, d
		count[s]++
	}
	// Sort each row by (relation, neighbour) as packed keys and drop
	// duplicates in place.
	w := int32(0)
	newOff := make([]int32, n+1)
	var keys []uint64
	for e := 0; e < n; e++ {
		lo, hi := off[e], off[e+1]
		keys = keys[:0]
		for i := lo; i < hi; i++ {
			keys = append(keys, uint64(uint32(rel[i]))<<32|uint64(uint32(nbr[i])))
		}
		slices.Sort(keys)
		newOff[e] = w
		for i, k := range keys {
			if i > 0 && k == keys[i-1] {
				continue
			}
			rel[w], nbr[w] = int32(k>>32), int32(uint32(k))
			w++
		}
	}
	newOff[n] = w
	return Adjacency{Off: newOff, Rel: rel[:w:w], Nbr: nbr[:w:w]}
}

// Neighbors returns the sorted neighbours of e through relation r. The slice
// aliases the index and must not be modified.
func (a *Adjacency) Neighbors(e, r int32) []int32 {
	lo, hi := a.Off[e], a.Off[e+1]
	rels := a.Rel[lo:hi]
	i, _ := slices.BinarySearch(rels, r)
	j := i
	for j < len(rels) && rels[j] == r {
		j++
	}
	return a.Nbr[lo+int32(i) : lo+int32(j)]
}

// Relations returns the relations of e's edges (sorted, with repeats, one per
// edge) and the matching neighbours. Both alias the index.
func (a *Adjacency) Edges(e int32) (rels, nbrs []int32) {
	lo, hi := a.Off[e], a.Off[e+1]
	return a.Rel[lo:hi], a.Nbr[lo:hi]
}

// Degree is the number of edges of e in this index.
func (a *Adjacency) Degree(e int32) int { return int(a.Off[e+1] - a.Off[e]) }

// Tails returns the tails t with (h, r, t) in the graph, sorted.
func (g *Graph) Tails(h, r int32) []int32 { return g.Out.Neighbors(h, r) }

// Heads returns the heads h with (h, r, t) in the graph, sorted.
func (g *Graph) Heads(t, r int32) []int32 { return g.In.Neighbors(t, r) }

// HasEdge reports whether (h, r, t) is in the graph.
func (g *Graph) HasEdge(h, r, t int32) bool {
	_, ok := slices.BinarySearch(g.Tails(h, r), t)
	return ok
}

// RelationEdges returns the edges (head[i], r, tail[i]) of relation r,
// sorted by (head, tail). The slices alias an index built on the first
// call (safe for concurrent use) and must not be modified.
func (g *Graph) RelationEdges(r int32) (head, tail []int32) {
	x := g.byRel.Load()
	if x == nil {
		x = g.buildRelEdges()
		if !g.byRel.CompareAndSwap(nil, x) {
			x = g.byRel.Load()
		}
	}
	lo, hi := x.off[r], x.off[r+1]
	return x.head[lo:hi], x.tail[lo:hi]
}

// buildRelEdges walks Out, which is sorted by (head, relation, tail), so
// each relation's edges come out sorted by (head, tail).
func (g *Graph) buildRelEdges() *relEdges {
	off := make([]int32, g.R+1)
	for _, r := range g.Out.Rel {
		off[r+1]++
	}
	for r := 1; r <= g.R; r++ {
		off[r] += off[r-1]
	}
	x := &relEdges{off: off, head: make([]int32, len(g.Out.Rel)), tail: make([]int32, len(g.Out.Rel))}
	next := slices.Clone(off[:g.R])
	for h := 0; h < g.N; h++ {
		for i := g.Out.Off[h]; i < g.Out.Off[h+1]; i++ {
			r := g.Out.Rel[i]
			x.head[next[r]], x.tail[next[r]] = int32(h), g.Out.Nbr[i]
			next[r]++
		}
	}
	return x
}

// NumEdges is the number of distinct triples.
func (g *Graph) NumEdges() int { return len(g.Out.Nbr) }

// Triples lists every edge of g ordered by head, relation, tail.
func (g *Graph) Triples() []Triple {
	out := make([]Triple, 0, g.NumEdges())
	for h := 0; h < g.N; h++ {
		rels, nbrs := g.Out.Edges(int32(h))
		for i := range rels {
			out = append(out, Triple{int32(h), rels[i], nbrs[i]})
		}
	}
	return out
}

// Inverse returns the inverse of relation r in the benchmark numbering.
func Inverse(r int32) int32 { return r ^ 1 }
