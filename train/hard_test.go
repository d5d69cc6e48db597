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
// relaxation on the train graph that are not its answers (a subset of
// hardKeep of them when there are more); the other structures have none.
func TestHardSets(t *testing.T) {
	d, sel := tinyGroups(t)
	hs, err := hardSets(d.KG.Train, sel.other, 1)
	if err != nil {
		t.Fatal(err)
	}
	withHard := 0
	for gi, g := range sel.other {
		_, neg := query.Relax(g.Template)
		if (hs[gi] != nil) != neg {
			t.Fatalf("%s: hard set %v, negation %v", g.Name(), hs[gi] != nil, neg)
		}
		if !neg {
			continue
		}
		for i := range g.Len() {
			r, _ := query.Relax(g.Query(i))
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
			if len(got) > 0 {
				withHard++
			}
		}
	}
	if withHard == 0 {
		t.Fatal("no query of the tiny dataset has a hard negative: the test checks nothing")
	}
}

// TestStreamHardNegatives: each negation row draws HardPerRow of its hard
// negatives, into its own first negatives or the batch's shared ones (up
// to the stream's count); a stream without them draws the same batch as
// before.
func TestStreamHardNegatives(t *testing.T) {
	d, sel := tinyGroups(t)
	n := d.KG.Entities.Len()
	hs, err := hardSets(d.KG.Train, sel.other, 1)
	if err != nil {
		t.Fatal(err)
	}
	draw := func(shared bool, negatives, perRow int) *Batch {
		s := NewStream(sel.other, nil, n, negatives, false, 1)
		s.SharedNegatives = shared
		if perRow >= 0 {
			s.Hard, s.HardPerRow = hs, perRow
		}
		return s.Next(32, rand.New(rand.NewPCG(3, 4)))
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

	b = draw(false, 7, 3)
	row := 0
	for _, p := range b.Parts {
		gi := slices.Index(sel.other, p.Group)
		for _, r := range p.Rows {
			neg := b.Negative[7*row : 7*row+7]
			if hs[gi] != nil && len(hs[gi].Row(r)) > 0 {
				for _, e := range neg[:3] {
					if !slices.Contains(hs[gi].Row(r), e) {
						t.Fatalf("row %d: negative %d is not among its hard negatives", row, e)
					}
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
}

// Training with hard negatives runs, with the shared and the sampled losses.
func TestTrainHardNegatives(t *testing.T) {
	d := tinyDataset(t)
	for _, loss := range []string{"shared", "softmax"} {
		cfg := tinyConfig()
		cfg.Loss, cfg.HardNegatives, cfg.Steps = loss, 2, 3
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
	one, err := hardSets(d.KG.Train, sel.other, 7)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GOMAXPROCS(4)
	many, err := hardSets(d.KG.Train, sel.other, 7)
	if err != nil {
		t.Fatal(err)
	}
	for gi := range one {
		if (one[gi] == nil) != (many[gi] == nil) || one[gi] != nil && (!slices.Equal(one[gi].off, many[gi].off) || !slices.Equal(one[gi].ids, many[gi].ids)) {
			t.Fatalf("group %s: hard sets differ between 1 and 4 cores", sel.other[gi].Name())
		}
	}
}
