package betae

import (
	"math/rand/v2"
	"testing"

	"github.com/gammae/gammae/internal/baseline/baselinetest"
	"github.com/gammae/gammae/internal/reftest"
)

func fromReference(t *testing.T, r *reftest.Reference) *Model {
	t.Helper()
	m, err := New(Config{Entities: r.Int(t, "nentity"), Relations: r.Int(t, "nrelation"), Dim: r.Int(t, "dim"),
		Hidden: r.Int(t, "hidden"), Layers: r.Int(t, "layers"), Gamma: r.Float(t, "gamma")}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestParity(t *testing.T) {
	r := reftest.Load(t, "betae")
	baselinetest.Parity(t, r, fromReference(t, r))
}

func small(t *testing.T, union string) *Model {
	m, err := New(Config{Entities: 7, Relations: 3, Dim: 3, Hidden: 5, Layers: 2, Gamma: 5, Union: union}, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestGradientFiniteDifferences(t *testing.T) {
	for _, u := range []string{"dnf", "dm"} {
		t.Run(u, func(t *testing.T) { baselinetest.FiniteDifferences(t, small(t, u), Kind.Structures, 7, 3) })
	}
}

func TestErrors(t *testing.T) {
	baselinetest.Errors(t, small(t, "dnf"), true)
	if _, err := New(Config{Entities: 1, Relations: 1, Dim: 2, Hidden: 0, Layers: 1, Gamma: 1, Union: "moment"}, nil); err == nil {
		t.Error("invalid config accepted")
	}
}

func TestFastScores(t *testing.T) {
	baselinetest.FastScores(t, small(t, "dnf"), Kind.Structures, 7, 3)
}

func TestBatched(t *testing.T) {
	baselinetest.Batched(t, func() *Model { return small(t, "dnf") }, Kind.Structures, 7, 3)
}
