package train

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/gammae/gammae/betae"
	"github.com/gammae/gammae/cone"
	"github.com/gammae/gammae/qe"
	"github.com/gammae/gammae/registry"
)

// A baseline's run interrupted and resumed follows the same loss curve as
// an uninterrupted one, through an lr drop and an optimiser reset, as
// GammaE's does.
func TestModelResumeIsExact(t *testing.T) {
	d := tinyDataset(t)
	for _, tc := range []struct {
		kind   qe.Kind
		config any
	}{
		{betae.Kind, betae.Config{Entities: d.KG.Train.N, Relations: d.KG.Train.R, Dim: 4, Hidden: 6, Layers: 2, Gamma: 12, Union: "dnf"}},
		// ConE draws dropout masks: their source is checkpointed too.
		{cone.Kind, cone.Config{Entities: d.KG.Train.N, Relations: d.KG.Train.R, Dim: 4, Hidden: 6, Layers: 2, Gamma: 12, CenterReg: 0.02, Dropout: 0.3, Union: "dnf"}},
	} {
		t.Run(tc.kind.Name, func(t *testing.T) {
			cfg := tinyConfig()
			cfg.Structures = tc.kind.Structures
			config, err := json.Marshal(tc.config)
			if err != nil {
				t.Fatal(err)
			}
			model := func() qe.Model {
				m, err := tc.kind.New(config, 3)
				if err != nil {
					t.Fatal(err)
				}
				return m
			}
			var straight, resumed []float64
			if _, err := RunModel(context.Background(), cfg, model(), config, d, Options{Dir: t.TempDir(),
				OnIteration: func(_ int, l float64) { straight = append(straight, l) }}); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			rec := func(_ int, l float64) { resumed = append(resumed, l) }
			if _, err := RunModel(context.Background(), cfg, model(), config, d, Options{Dir: dir, MaxIterations: 5, OnIteration: rec}); err != nil {
				t.Fatal(err)
			}
			if _, err := RunModel(context.Background(), cfg, model(), config, d, Options{Dir: dir, Resume: true, OnIteration: rec, NewModel: registry.New}); err != nil {
				t.Fatal(err)
			}
			if len(resumed) != len(straight) || len(straight) != cfg.Steps {
				t.Fatalf("%d losses resumed, %d straight, want %d", len(resumed), len(straight), cfg.Steps)
			}
			for i := range straight {
				if straight[i] != resumed[i] {
					t.Fatalf("iteration %d: loss %v resumed, %v straight", i+1, resumed[i], straight[i])
				}
			}
		})
	}
}
