package train

import (
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gammae/gammae/dataset"
)

func TestParseWeights(t *testing.T) {
	for _, c := range []struct {
		in   string
		want map[string]float64
		err  string
	}{
		{"2in=10, 3in=2.5", map[string]float64{"2in": 10, "3in": 2.5}, ""},
		{"", map[string]float64{}, ""},
		{"2in", nil, "want structure=weight"},
		{"2in=x", nil, "not a number"},
		{"2in=1,2in=2", nil, "weighted twice"},
	} {
		got, err := ParseWeights(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || len(got) != len(c.want) {
			t.Errorf("%q: %v, %v; want %v", c.in, got, err, c.want)
		}
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("%q: %s=%g, want %g", c.in, k, got[k], v)
			}
		}
		// FormatWeights writes what ParseWeights reads back.
		if back, err := ParseWeights(FormatWeights(got)); err != nil || !maps.Equal(back, got) {
			t.Errorf("%q: written as %q, read back as %v, %v", c.in, FormatWeights(got), back, err)
		}
	}
	if s := FormatWeights(map[string]float64{"3in": 2.5, "1p": 5}); s != "1p=5,3in=2.5" {
		t.Errorf("FormatWeights: %q, want the names in order", s)
	}
}

func TestWeightsValidate(t *testing.T) {
	for _, c := range []struct {
		w   map[string]float64
		err string
	}{
		{map[string]float64{"2in": 10, "2u": 3}, ""}, // 2u names 2u-DNF
		{map[string]float64{"2in": 0}, "finite number > 0"},
		{map[string]float64{"pi": 2}, "not a training structure"},
	} {
		cfg := tinyConfig()
		cfg.StructureWeights = c.w
		err := cfg.Validate()
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%v: %v, want %q", c.w, err, c.err)
		}
	}
}

func TestWeightedRows(t *testing.T) {
	for _, c := range []struct {
		n     int
		w     float64
		count int
	}{{10, 1, 10}, {10, 2.5, 25}, {10, 0.3, 3}, {10, 0.01, 1}} {
		rows := weightedRows(c.n, c.w, 7)
		if len(rows) != c.count {
			t.Fatalf("n=%d w=%g: %d rows, want %d", c.n, c.w, len(rows), c.count)
		}
		seen := map[int32]int{}
		for _, r := range rows {
			seen[r]++
		}
		for r, k := range seen {
			if r < 0 || int(r) >= c.n || k > int(c.w)+1 || c.w >= 1 && k < int(c.w) {
				t.Fatalf("n=%d w=%g: row %d visited %d times", c.n, c.w, r, k)
			}
		}
	}
	if w1 := weightedRows(5, 1, 3); !slices.Equal(w1, []int32{0, 1, 2, 3, 4}) {
		t.Errorf("weight 1 rows %v, want every row once in order", w1)
	}
}

// TestStreamWeights checks that a weight scales a structure's share of the
// batches, and that weight 1 is the unweighted stream.
func TestStreamWeights(t *testing.T) {
	d, sel := tinyGroups(t)
	groups := sel.other
	share := func(weights []float64) []float64 {
		s := NewStream(groups, weights, d.KG.Entities.Len(), 2, false, 1)
		rng := rand.New(rand.NewPCG(1, 2))
		counts := make([]float64, len(groups))
		total := 0.0
		for range 200 {
			for _, p := range s.Next(16, rng).Parts {
				for gi, g := range groups {
					if g == p.Group {
						counts[gi] += float64(len(p.Rows))
					}
				}
				total += float64(len(p.Rows))
			}
		}
		for i := range counts {
			counts[i] /= total
		}
		return counts
	}
	ones := make([]float64, len(groups))
	for i := range ones {
		ones[i] = 1
	}
	a, b := NewStream(groups, nil, d.KG.Entities.Len(), 2, false, 1), NewStream(groups, ones, d.KG.Entities.Len(), 2, false, 1)
	if !slices.Equal(a.refs, b.refs) {
		t.Fatal("weight 1 changes the stream")
	}
	base := share(nil)
	heavy := slices.Clone(ones)
	heavy[0] = 4
	got := share(heavy)
	// Group 0's expected share: 4n₀ / (4n₀ + rest).
	n0, rest := float64(groups[0].Len()), 0.0
	for _, g := range groups[1:] {
		rest += float64(g.Len())
	}
	want := 4 * n0 / (4*n0 + rest)
	if got[0] < want-0.05 || got[0] > want+0.05 || got[0] <= base[0] {
		t.Errorf("share of %s at weight 4: %.3f (unweighted %.3f), want ≈ %.3f", groups[0].Name(), got[0], base[0], want)
	}
}

// FuzzParseWeights: any flag value is either weights that validate
// consistently or an error naming the bad item; never a panic.
func FuzzParseWeights(f *testing.F) {
	for _, s := range []string{"2in=10,3in=10", "", "2u=0.5", "2in", "2in=x", "a=1,a=2", "=3", "2in=NaN", "2in=-1", "1p=1e308,2p=inf"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := ParseWeights(s)
		if err != nil {
			if w != nil {
				t.Fatalf("%q: weights %v with error %v", s, w, err)
			}
			return
		}
		cfg := tinyConfig()
		cfg.StructureWeights = w
		err = cfg.Validate()
		for name, v := range w {
			ok := v > 0 && !math.IsInf(v, 0)
			if !ok && err == nil {
				t.Fatalf("%q: weight %s=%g validated", s, name, v)
			}
		}
	})
}

// TestStreamSharedNegatives: with shared negatives a batch has its
// negatives once, in range, and no per-row ones; the queries and
// positives drawn are those of a stream without them, and the same seed
// gives the same batch.
func TestStreamSharedNegatives(t *testing.T) {
	d, sel := tinyGroups(t)
	n := d.KG.Entities.Len()
	draw := func(shared bool) *Batch {
		s := NewStream(sel.path, nil, n, 7, false, 1)
		s.SharedNegatives = shared
		return s.Next(16, rand.New(rand.NewPCG(3, 4)))
	}
	per, sh, again := draw(false), draw(true), draw(true)
	if len(sh.Negative) != 0 || len(sh.Shared) != 7 {
		t.Fatalf("shared stream: %d per-row negatives, %d shared; want 0 and 7", len(sh.Negative), len(sh.Shared))
	}
	if len(per.Shared) != 0 || len(per.Negative) != 7*per.Size() {
		t.Fatalf("per-row stream: %d shared, %d negatives for %d rows", len(per.Shared), len(per.Negative), per.Size())
	}
	for _, e := range sh.Shared {
		if e < 0 || int(e) >= n {
			t.Fatalf("shared negative %d out of range [0, %d)", e, n)
		}
	}
	if !slices.Equal(sh.Positive, again.Positive) || !slices.Equal(sh.Shared, again.Shared) {
		t.Fatal("the same seed drew different batches")
	}
	if len(per.Parts) != len(sh.Parts) || !slices.Equal(per.Parts[0].Rows, sh.Parts[0].Rows) {
		t.Fatal("sharing the negatives changed the queries drawn")
	}
	if sh.Exclude != nil {
		t.Fatal("a stream without ExcludeAnswers listed answers")
	}
	s := NewStream(sel.path, nil, n, 7, false, 1)
	s.SharedNegatives, s.ExcludeAnswers = true, true
	ex := s.Next(16, rand.New(rand.NewPCG(3, 4)))
	if !slices.Equal(ex.Positive, sh.Positive) || len(ex.Exclude) != len(ex.Positive) {
		t.Fatalf("with ExcludeAnswers: %d positives (%d without), %d rows of answers", len(ex.Positive), len(sh.Positive), len(ex.Exclude))
	}
	r := 0
	for _, p := range ex.Parts {
		for _, row := range p.Rows {
			if !slices.Equal(ex.Exclude[r], p.Group.Answers(row)) || !slices.Contains(ex.Exclude[r], ex.Positive[r]) {
				t.Fatalf("row %d: answers %v listed, the query's %v, positive %d", r, ex.Exclude[r], p.Group.Answers(row), ex.Positive[r])
			}
			r++
		}
	}
}

// TestQueryWeights checks each row's loss weight: the reference's
// sqrt(1/(4+|answers|)) by default, 1 with UniformWeights.
func TestQueryWeights(t *testing.T) {
	d, sel := tinyGroups(t)
	for _, uniform := range []bool{false, true} {
		s := NewStream(sel.other, nil, d.KG.Entities.Len(), 2, false, 1)
		s.UniformWeights = uniform
		b := s.Next(32, rand.New(rand.NewPCG(1, 2)))
		row := 0
		for _, p := range b.Parts {
			for i, r := range p.Rows {
				want := math.Sqrt(1 / (4 + float64(len(p.Group.Answers(r)))))
				if uniform {
					want = 1
				}
				if p.Weight[i] != want || b.Weight[row] != want {
					t.Fatalf("uniform %v: row %d (%d answers) weight %v (batch %v), want %v", uniform, row, len(p.Group.Answers(r)), p.Weight[i], b.Weight[row], want)
				}
				row++
			}
		}
	}
}

// tinyGroups is the tiny dataset and its training groups under the tiny
// configuration.
func tinyGroups(t *testing.T) (*dataset.Dataset, *selection) {
	t.Helper()
	d := tinyDataset(t)
	cfg := tinyConfig()
	sel, err := selectGroups(&cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	return d, sel
}
