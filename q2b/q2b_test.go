package q2b

import (
	"math/rand/v2"
	"testing"

	"github.com/gammae/gammae/internal/baseline/baselinetest"
	"github.com/gammae/gammae/internal/reftest"
)

func fromReference(t *testing.T, r *reftest.Reference) *Model {
	t.Helper()
	m, err := New(Config{Entities: r.Int(t, "nentity"), Relations: r.Int(t, "nrelation"), Dim: r.Int(t, "dim"), Gamma: r.Float(t, "gamma"), CenterReg: r.Float(t, "center_reg")},
		rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestParity(t *testing.T) {
	r := reftest.Load(t, "q2b")
	baselinetest.Parity(t, r, fromReference(t, r))
}

func TestGradientFiniteDifferences(t *testing.T) {
	m, err := New(Config{Entities: 7, Relations: 3, Dim: 3, Gamma: 5, CenterReg: 0.02}, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	baselinetest.FiniteDifferences(t, m, Kind.Structures, 7, 3)
}

func TestErrors(t *testing.T) {
	m, err := New(Config{Entities: 7, Relations: 3, Dim: 3, Gamma: 5, CenterReg: 0.02}, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	baselinetest.Errors(t, m, false)
	if _, err := New(Config{Entities: 0, Relations: 3, Dim: -1, Gamma: 0}, nil); err == nil {
		t.Error("invalid config accepted")
	}
}

func TestFastScores(t *testing.T) {
	baselinetest.FastScores(t, smallModel(t), Kind.Structures, 7, 3)
}

func smallModel(t *testing.T) *Model {
	m, err := New(Config{Entities: 7, Relations: 3, Dim: 3, Gamma: 5, CenterReg: 0.02}, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestBatched(t *testing.T) {
	baselinetest.Batched(t, func() *Model { return smallModel(t) }, Kind.Structures, 7, 3)
}
