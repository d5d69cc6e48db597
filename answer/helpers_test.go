package answer

import (
	"math/rand/v2"
	"testing"

	"github.com/gammae/gammae/calibrate"
	"github.com/gammae/gammae/gamma"
	"github.com/gammae/gammae/kg"
	"github.com/gammae/gammae/serve"
)

// tinyKG loads the repository's tiny named graph (10 entities: ann, bob,
// ..., lima, oslo, rome; relations knows, likes, lives, near) with a few
// display labels.
func tinyKG(t testing.TB) *kg.KG {
	t.Helper()
	k, _, err := kg.LoadTriples("../testdata/tiny", kg.TripleOptions{KeepUnseen: true})
	if err != nil {
		t.Fatal(err)
	}
	k.Entities.SetLabels(map[string]string{"ann": "Ann Smith", "bob": "Bob", "rome": "Roma", "oslo": "Roma"})
	return k
}

// tinyEngine is an engine over tinyKG with a small random model.
func tinyEngine(t testing.TB, mode gamma.Union) *Engine {
	t.Helper()
	k := tinyKG(t)
	cfg := gamma.Config{Entities: k.Entities.Len(), Relations: k.Relations.Len(), Dim: 8, Hidden: 16, Layers: 2,
		Gamma: 12, Epsilon: 0.07, Union: mode}
	m, err := gamma.New[float32](cfg, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	// A calibration's shift, so that the results' estimates are checked with one.
	return New(k, m, serve.Info{Dataset: "tiny", TrainedSteps: 7, Estimates: true, Calibration: calibrate.Shifts{Default: -1.5, Structures: map[string]float64{"2p": 2}}})
}
