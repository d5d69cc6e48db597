package dataset

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/gammae/gammae/kg"
)

// levels returns, for each edge of the test graph's Out and In indexes, the
// first graph holding it: 0 train, 1 valid, 2 test. It fails unless
// train ⊆ valid ⊆ test.
func levels(k *kg.KG) (out, in []byte, err error) {
	if k.Train == nil || k.Valid == nil || k.Test == nil {
		return nil, nil, fmt.Errorf("the knowledge graph lacks a train, valid or test graph")
	}
	for _, g := range []*kg.Graph{k.Train, k.Valid} {
		if g.N != k.Test.N || g.R != k.Test.R {
			return nil, nil, fmt.Errorf("graphs differ in size: %d×%d versus test %d×%d", g.N, g.R, k.Test.N, k.Test.R)
		}
	}
	if err := markSubset(&k.Valid.Out, &k.Train.Out, nil, 0); err != nil {
		return nil, nil, fmt.Errorf("train graph is not part of the valid graph: %w", err)
	}
	out = bytes.Repeat([]byte{2}, len(k.Test.Out.Nbr))
	in = bytes.Repeat([]byte{2}, len(k.Test.In.Nbr))
	for _, c := range []struct {
		big, small *kg.Adjacency
		lv         []byte
		level      byte
	}{
		{&k.Test.Out, &k.Valid.Out, out, 1}, {&k.Test.Out, &k.Train.Out, out, 0},
		{&k.Test.In, &k.Valid.In, in, 1}, {&k.Test.In, &k.Train.In, in, 0},
	} {
		if err := markSubset(c.big, c.small, c.lv, c.level); err != nil {
			return nil, nil, fmt.Errorf("%s graph is not part of the test graph: %w", splitNames[c.level], err)
		}
	}
	return out, in, nil
}

// markSubset walks every row of small alongside the same row of big (both
// sorted by relation, neighbour) and sets lv[i] = level for each edge i of
// big that small holds (lv may be nil). It fails when small has an edge big
// lacks. It is linear in the edges: looking edges up one by one is
// quadratic in the degree of hubs.
func markSubset(big, small *kg.Adjacency, lv []byte, level byte) error {
	for e := int32(0); e < int32(len(big.Off)-1); e++ {
		i, end := big.Off[e], big.Off[e+1]
		for j := small.Off[e]; j < small.Off[e+1]; j++ {
			r, n := small.Rel[j], small.Nbr[j]
			for i < end && (big.Rel[i] < r || big.Rel[i] == r && big.Nbr[i] < n) {
				i++
			}
			if i == end || big.Rel[i] != r || big.Nbr[i] != n {
				return fmt.Errorf("entity %d has an edge through relation %d with %d", e, r, n)
			}
			if lv != nil {
				lv[i] = level
			}
		}
	}
	return nil
}

// filter returns the edges of a whose level is at most max.
func filter(a kg.Adjacency, lv []byte, max byte) kg.Adjacency {
	n := len(a.Off) - 1
	keep := 0
	for _, l := range lv {
		if l <= max {
			keep++
		}
	}
	if keep == len(lv) {
		return a
	}
	out := kg.Adjacency{Off: make([]int32, n+1), Rel: make([]int32, 0, keep), Nbr: make([]int32, 0, keep)}
	for e := 0; e < n; e++ {
		for i := a.Off[e]; i < a.Off[e+1]; i++ {
			if lv[i] <= max {
				out.Rel = append(out.Rel, a.Rel[i])
				out.Nbr = append(out.Nbr, a.Nbr[i])
			}
		}
		out.Off[e+1] = int32(len(out.Nbr))
	}
	return out
}

func writeAdjacency(w *writer, a kg.Adjacency, lv []byte) {
	w.u64(uint64(len(a.Nbr)))
	off := make([]uint32, len(a.Off))
	for i, o := range a.Off {
		off[i] = uint32(o)
	}
	w.u32s(off)
	w.i32s(a.Rel)
	w.i32s(a.Nbr)
	w.write(lv)
	w.pad()
}

// readAdjacency reads and validates one index: offsets non-decreasing from 0
// to E, ids in range, rows strictly sorted by (relation, neighbour).
func readAdjacency(r *reader, n, nr int, what string) (kg.Adjacency, []byte, error) {
	var a kg.Adjacency
	e, err := r.count(9, what+" edge count")
	if err != nil {
		return a, nil, err
	}
	start := r.base + r.off
	off, err := r.u32s(uint64(n)+1, what+" offsets")
	if err != nil {
		return a, nil, err
	}
	if a.Rel, err = r.i32s(uint64(e), what+" relations"); err != nil {
		return a, nil, err
	}
	if a.Nbr, err = r.i32s(uint64(e), what+" neighbours"); err != nil {
		return a, nil, err
	}
	// The graph is copied, never left in place: a few MB, and a server
	// that keeps only the graph then lets the file's buffer go.
	a.Rel, a.Nbr = slices.Clone(a.Rel), slices.Clone(a.Nbr)
	lv, err := r.take(uint64(e), what+" edge levels")
	if err != nil {
		return a, nil, err
	}
	if err := r.pad(what + " edge levels"); err != nil {
		return a, nil, err
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s at byte %d: %s", what, start, fmt.Sprintf(format, args...))
	}
	a.Off = make([]int32, len(off))
	if off[0] != 0 || off[n] != uint32(e) {
		return a, nil, bad("offsets run from %d to %d, want 0 to %d", off[0], off[n], e)
	}
	for i := 1; i <= n; i++ {
		if off[i] < off[i-1] {
			return a, nil, bad("offset of entity %d decreases", i)
		}
	}
	for i, o := range off {
		a.Off[i] = int32(o)
	}
	for v := 0; v < n; v++ {
		for i := a.Off[v]; i < a.Off[v+1]; i++ {
			rel, nbr := a.Rel[i], a.Nbr[i]
			if rel < 0 || int(rel) >= nr || nbr < 0 || int(nbr) >= n {
				return a, nil, bad("edge %d (%d,%d,%d) out of range", i, v, rel, nbr)
			}
			if i > a.Off[v] && (rel < a.Rel[i-1] || rel == a.Rel[i-1] && nbr <= a.Nbr[i-1]) {
				return a, nil, bad("edges of entity %d are not sorted", v)
			}
			if lv[i] > 2 {
				return a, nil, bad("edge %d has level %d, want 0, 1 or 2", i, lv[i])
			}
		}
	}
	return a, lv, nil
}
