package train

import (
	"context"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/gammae/gammae/exact"
	"github.com/gammae/gammae/query"
)

// TestHardSets: a negation query's hard negatives are the answers of its
// relaxation on the train graph that are not its answers, an intersection
// query's those of its loosening (a subset of hardKeep of them when there
// are more); the other structures have none, and neither kind without a
// count per row.
func TestHardSets(t *testing.T) {
	d, sel := tinyGroups(t)
	for _, tc := range []struct{ negation, intersection int }{{3, 0}, {0, 2}, {3, 2}} {
		hs, err := hardSets(d.KG.Train, sel.other, 1, tc.negation, tc.intersection)
		if err != nil {
			t.Fatal(err)
		}
		withHard := [2]int{}
		for gi, g := range sel.other {
			loosen, perRow, extra := query.Relax, tc.negation, false
			if _, neg := query.Relax(g.Template); !neg {
				loosen, perRow, extra = query.Loosen, tc.intersection, true
			}
			_, has := loosen(g.Template)
			has = has && perRow > 0
			if (hs[gi] != nil) != has {
				t.Fatalf("%v: %s: hard set %v, want %v", tc, g.Name(), hs[gi] != nil, has)
			}
			if !has {
				continue
			}
			if hs[gi].PerRow != perRow || hs[gi].Extra != extra {
				t.Fatalf("%v: %s: %d a row, extra %v; want %d, %v", tc, g.Name(), hs[gi].PerRow, hs[gi].Extra, perRow, extra)
			}
			for i := range g.Len() {
				r, _ := loosen(g.Query(i))
				s, err := exact.Execute(d.KG.Train, r)
				if err != nil {
					t.Fatal(err)
				}
				var want []int32
				for _, e := range s.Slice() {
					if !slices.Contains(g.Answers(i), e) {
						want = append(want, e)
					}
				}
				got := slices.Sorted(slices.Values(hs[gi].Row(i)))
				if len(want) > hardKeep {
					if len(got) != hardKeep || slices.ContainsFunc(got, func(e int32) bool { _, ok := slices.BinarySearch(want, e); return !ok }) {
						t.Fatalf("%s query %d: %d hard negatives kept of %d, want a subset of %d", g.Name(), i, len(got), len(want), hardKeep)
					}
				} else if !slices.Equal(got, want) {
					t.Fatalf("%s query %d: hard negatives %v, want %v", g.Name(), i, got, want)
				}
				if len(got) > 0 && extra {
					withHard[1]++
				} else if len(got) > 0 {
					withHard[0]++
				}
			}
		}
		if tc.negation > 0 && withHard[0] == 0 || tc.intersection > 0 && withHard[1] == 0 {
			t.Fatalf("%v: rows with hard negatives %v: the test checks nothing", tc, withHard)
		}
	}
}

// TestStreamHardNegatives: each negation row draws HardPerRow of its hard
// negatives, into its own first negatives or the batch's shared ones (up
// to the stream's count); a stream without them draws the same batch as
// before.
func TestStreamHardNegatives(t *testing.T) {
	d, sel := tinyGroups(t)
	n := d.KG.Entities.Len()
	sets := func(negation, intersection int) []*HardSet {
		hs, err := hardSets(d.KG.Train, sel.other, 1, negation, intersection)
		if err != nil {
			t.Fatal(err)
		}
		return hs
	}
	hs := sets(3, 0)
	drawWith := func(hs []*HardSet, shared bool, negatives int) *Batch {
		s := NewStream(sel.other, nil, n, negatives, false, 1)
		s.SharedNegatives, s.Hard = shared, hs
		return s.Next(32, rand.New(rand.NewPCG(3, 4)))
	}
	draw := func(shared bool, negatives, perRow int) *Batch {
		switch perRow {
		case -1:
			return drawWith(nil, shared, negatives)
		case 3:
			return drawWith(hs, shared, negatives)
		}
		return drawWith(sets(perRow, 0), shared, negatives)
	}
	// hardRows lists the hard negatives of each batch row that has some.
	hardRows := func(b *Batch) [][]int32 {
		var out [][]int32
		for _, p := range b.Parts {
			gi := slices.Index(sel.other, p.Group)
			for _, r := range p.Rows {
				if hs[gi] != nil && len(hs[gi].Row(r)) > 0 {
					out = append(out, hs[gi].Row(r))
				}
			}
		}
		return out
	}
	for _, shared := range []bool{false, true} {
		plain, off := draw(shared, 7, -1), draw(shared, 7, 0)
		if !slices.Equal(plain.Shared, off.Shared) || !slices.Equal(plain.Negative, off.Negative) || !slices.Equal(plain.Positive, off.Positive) {
			t.Fatalf("shared %v: HardPerRow 0 changed the batch", shared)
		}
	}

	b := draw(true, 200, 3)
	rows := hardRows(b)
	if len(rows) == 0 {
		t.Fatal("the batch has no row with hard negatives: the test checks nothing")
	}
	if len(b.Shared) != 200 {
		t.Fatalf("%d shared negatives, want 200", len(b.Shared))
	}
	for i, h := range rows {
		for _, e := range b.Shared[3*i : 3*i+3] {
			if !slices.Contains(h, e) {
				t.Fatalf("shared negative %d of row %d is not among its hard negatives %v", e, i, h)
			}
		}
	}
	if capped := draw(true, 2, 3); len(capped.Shared) != 2 || !slices.Contains(rows[0], capped.Shared[0]) {
		t.Fatalf("2 shared negatives: %v, want 2 hard ones of %v", capped.Shared, rows[0])
	}

	// Intersection rows add theirs beyond the shared count, in row order,
	// and leave the negation rows' draws the first places.
	both := sets(3, 2)
	b = drawWith(both, true, 200)
	var extra [][]int32
	for _, p := range b.Parts {
		gi := slices.Index(sel.other, p.Group)
		for _, r := range p.Rows {
			if both[gi] != nil && both[gi].Extra && len(both[gi].Row(r)) > 0 {
				extra = append(extra, both[gi].Row(r))
			}
		}
	}
	if len(extra) == 0 {
		t.Fatal("the batch has no intersection row with hard negatives: the test checks nothing")
	}
	if len(b.Shared) != 200+2*len(extra) {
		t.Fatalf("%d shared negatives, want 200 and 2 for each of %d intersection rows", len(b.Shared), len(extra))
	}
	for i, h := range extra {
		for _, e := range b.Shared[200+2*i : 200+2*i+2] {
			if !slices.Contains(h, e) {
				t.Fatalf("extra shared negative %d of intersection row %d is not among its hard negatives %v", e, i, h)
			}
		}
	}
	for i, h := range hardRows(b) {
		for _, e := range b.Shared[3*i : 3*i+3] {
			if !slices.Contains(h, e) {
				t.Fatalf("with intersection draws, shared negative %d of row %d is not among its hard negatives %v", e, i, h)
			}
		}
	}

	// Without shared negatives each row's first draws are its own set's.
	b = drawWith(both, false, 7)
	row, drawn := 0, [2]bool{}
	for _, p := range b.Parts {
		gi := slices.Index(sel.other, p.Group)
		for _, r := range p.Rows {
			neg := b.Negative[7*row : 7*row+7]
			if h := both[gi]; h != nil && len(h.Row(r)) > 0 {
				for _, e := range neg[:h.PerRow] {
					if !slices.Contains(h.Row(r), e) {
						t.Fatalf("row %d: negative %d is not among its hard negatives", row, e)
					}
				}
				if h.Extra {
					drawn[1] = true
				} else {
					drawn[0] = true
				}
			}
			for _, e := range neg {
				if slices.Contains(p.Group.Answers(r), e) {
					t.Fatalf("row %d: negative %d is an answer", row, e)
				}
			}
			row++
		}
	}
	if !drawn[0] || !drawn[1] {
		t.Fatalf("rows with negation / intersection hard negatives: %v: the test checks nothing", drawn)
	}
}

// Training with both kinds of hard negatives runs, with the shared and
// the sampled losses.
func TestTrainHardNegatives(t *testing.T) {
	d := tinyDataset(t)
	for _, loss := range []string{"shared", "softmax"} {
		cfg := tinyConfig()
		cfg.Loss, cfg.HardNegatives, cfg.HardIntersections, cfg.Steps = loss, 2, 1, 3
		if loss == "shared" {
			cfg.Negatives = 40
		}
		sum, err := Run(context.Background(), cfg, d, Options{})
		if err != nil || sum.Iterations != 3 {
			t.Fatalf("loss %s: %v after %v", loss, err, sum)
		}
	}
}

// TestHardSetsIndependentOfCores: the groups run side by side, each with
// its own random source, so one core or several give the same sets.
func TestHardSetsIndependentOfCores(t *testing.T) {
	d, sel := tinyGroups(t)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	one, err := hardSets(d.KG.Train, sel.other, 7, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GOMAXPROCS(4)
	many, err := hardSets(d.KG.Train, sel.other, 7, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	for gi := range one {
		if (one[gi] == nil) != (many[gi] == nil) || one[gi] != nil && (!slices.Equal(one[gi].off, many[gi].off) || !slices.Equal(one[gi].ids, many[gi].ids)) {
			t.Fatalf("group %s: hard sets differ between 1 and 4 cores", sel.other[gi].Name())
		}
	}
}
