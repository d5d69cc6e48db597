package kg

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// TestRelationEdges: every relation's edges are the graph's, sorted by
// (head, tail), and concurrent first calls agree.
func TestRelationEdges(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	var ts []Triple
	for range 500 {
		ts = append(ts, Triple{H: int32(r.IntN(40)), R: int32(r.IntN(6)), T: int32(r.IntN(40))})
	}
	g, err := NewGraph(40, 6, ts)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { g.RelationEdges(0) })
	}
	wg.Wait()
	total := 0
	for rel := range int32(6) {
		heads, tails := g.RelationEdges(rel)
		total += len(heads)
		var want [][2]int32
		for h := range int32(40) {
			for _, tl := range g.Tails(h, rel) {
				want = append(want, [2]int32{h, tl})
			}
		}
		got := make([][2]int32, len(heads))
		for i := range heads {
			got[i] = [2]int32{heads[i], tails[i]}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("relation %d: %v, want %v", rel, got, want)
		}
	}
	if total != g.NumEdges() {
		t.Errorf("%d edges over the relations, graph has %d", total, g.NumEdges())
	}
}
