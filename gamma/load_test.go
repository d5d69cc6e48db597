package gamma

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestLoadRejects(t *testing.T) {
	cfg := tinyConfig(UnionMoment)
	good := mustNew64(t, cfg).Params()
	edit := func(f func(ps []Param[float64]) []Param[float64]) []Param[float64] {
		ps := make([]Param[float64], len(good))
		copy(ps, good)
		return f(ps)
	}
	cases := []struct {
		name   string
		params []Param[float64]
		want   string
	}{
		{"unknown", edit(func(ps []Param[float64]) []Param[float64] {
			return append(ps, Param[float64]{Name: "extra", Shape: []int{1}, Data: []float64{0}})
		}), `unknown parameter "extra"`},
		{"missing", edit(func(ps []Param[float64]) []Param[float64] { return ps[1:] }), good[0].Name + " missing"},
		{"shape", edit(func(ps []Param[float64]) []Param[float64] {
			ps[0].Shape = []int{ps[0].Shape[1], ps[0].Shape[0]}
			return ps
		}), good[0].Name + " has shape"},
		{"length", edit(func(ps []Param[float64]) []Param[float64] {
			ps[0].Data = ps[0].Data[1:]
			return ps
		}), good[0].Name + " has shape"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load[float32](cfg, c.params)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// Load copies: the model shares no memory with the parameters it was
// loaded from, also when no conversion is needed.
func TestLoadCopies(t *testing.T) {
	cfg := tinyConfig(UnionMoment)
	src, err := Load[float32](cfg, mustNew64(t, cfg).Params())
	if err != nil {
		t.Fatal(err)
	}
	m, err := Load[float32](cfg, src.Params())
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range src.Params() {
		if !slices.Equal(p.Data, m.Params()[i].Data) {
			t.Fatalf("%s differs after loading", p.Name)
		}
		p.Data[0]++
		if m.Params()[i].Data[0] == p.Data[0] {
			t.Errorf("%s aliases its source", p.Name)
		}
	}
}

// Decode hands fill every parameter of the layout once, in order, zeroed,
// and stops at fill's first error.
func TestDecode(t *testing.T) {
	cfg := tinyConfig(UnionMoment)
	var names []string
	m, err := Decode(cfg, func(p Param[float32]) error {
		names = append(names, p.Name)
		if slices.ContainsFunc(p.Data, func(v float32) bool { return v != 0 }) {
			t.Errorf("%s not zeroed", p.Name)
		}
		for i := range p.Data {
			p.Data[i] = float32(len(names))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i, p := range m.Params() {
		want = append(want, p.Name)
		if p.Data[0] != float32(i+1) {
			t.Errorf("%s holds %v, not what fill wrote", p.Name, p.Data[0])
		}
	}
	if !slices.Equal(names, want) {
		t.Errorf("fill saw %v, want %v", names, want)
	}
	stop := errors.New("stop")
	calls := 0
	if _, err := Decode(cfg, func(Param[float32]) error { calls++; return stop }); !errors.Is(err, stop) || calls != 1 {
		t.Errorf("error %v after %d calls, want stop after 1", err, calls)
	}
}

// After Forget a program runs as in a fresh workspace, and the embedding
// returned before is no longer overwritten by the program's next run.
func TestForget(t *testing.T) {
	cfg := tinyConfig(UnionMoment)
	m := mustNew64(t, cfg)
	rng := rand.New(rand.NewPCG(5, 6))
	a := randomBatch(t, m, []string{"((e,(r,)),(e,(r,n)))"}, 3, 2, rng).Groups[0]
	b := randomBatch(t, m, []string{"((e,(r,)),(e,(r,n)))"}, 3, 2, rng).Groups[0]
	ws := m.NewWorkspace()
	first, err := ws.Embed(a.Program, a.IDs)
	if err != nil {
		t.Fatal(err)
	}
	kept := slices.Clone(first.Alpha[0])
	ws.Forget(a.Program)
	again, err := ws.Embed(a.Program, b.IDs)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := m.NewWorkspace().Embed(a.Program, b.IDs)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(again.Alpha[0], fresh.Alpha[0]) || !slices.Equal(again.Beta[0], fresh.Beta[0]) {
		t.Error("after Forget the program embeds differently from a fresh workspace")
	}
	if !slices.Equal(first.Alpha[0], kept) {
		t.Error("the embedding returned before Forget was overwritten")
	}
}
