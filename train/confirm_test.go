package train

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gammae/gammae/betae"
	"github.com/gammae/gammae/checkpoint"
	"github.com/gammae/gammae/gamma"
	"github.com/gammae/gammae/qe"
	"github.com/gammae/gammae/registry"
)

// TestConfirm: at the end of a run the best checkpoint and the last
// parameters are scored on the confirmation sample and the better is kept
// as best.safetensors, also when a finished run is resumed only for the
// check.
func TestConfirm(t *testing.T) {
	d := tinyDataset(t)
	for _, tc := range []struct {
		name       string
		last, best float64 // confirmation scores
		resumed    bool    // the run finished without the check; resumed for it
		wantBest   int
	}{
		{"last wins", 0.8, 0.2, false, 8},
		{"best kept", 0.2, 0.8, false, 4},
		{"tie keeps best", 0.5, 0.5, false, 4},
		{"resumed for the check", 0.8, 0.2, true, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tinyConfig()
			cfg.Steps, cfg.ValidEvery, cfg.CheckpointEvery, cfg.ValidQueries, cfg.ConfirmQueries = 8, 4, 4, 3, 5
			dir := t.TempDir()
			periodic := []float64{0.9, 0.1, 0.1} // iteration 4 tops the periodic sample
			var calls []float64
			o := Options{Dir: dir,
				Validate: func(context.Context, *gamma.Model[float32]) (float64, map[string]float64, error) {
					v := periodic[0]
					periodic = periodic[1:]
					return v, nil, nil
				},
				Confirm: func(context.Context, *gamma.Model[float32]) (float64, map[string]float64, error) {
					v := []float64{tc.last, tc.best}[len(calls)] // the last parameters, then the best checkpoint
					calls = append(calls, v)
					return v, nil, nil
				},
			}
			if tc.resumed {
				off := cfg
				off.ConfirmQueries = 0
				if _, err := Run(context.Background(), off, d, o); err != nil {
					t.Fatal(err)
				}
				if len(calls) != 0 {
					t.Fatalf("checked with confirm-queries 0")
				}
				o.Resume = true
			}
			sum, err := Run(context.Background(), cfg, d, o)
			if err != nil {
				t.Fatal(err)
			}
			if len(calls) != 2 {
				t.Fatalf("confirmation scored %d models, want 2", len(calls))
			}
			it, err := fileIteration(filepath.Join(dir, checkpoint.BestFile))
			if err != nil {
				t.Fatal(err)
			}
			if it != tc.wantBest || sum.BestIter != tc.wantBest {
				t.Errorf("best.safetensors holds iteration %d, summary says %d; want %d", it, sum.BestIter, tc.wantBest)
			}
			st, err := loadState(dir)
			if err != nil {
				t.Fatal(err)
			}
			if st.BestIter != tc.wantBest || st.Confirmed != 8 {
				t.Errorf("state: best %d confirmed %d, want %d and 8", st.BestIter, st.Confirmed, tc.wantBest)
			}
			if want := map[int]float64{8: 0.1, 4: 0.9}[tc.wantBest]; st.BestMRR != want {
				t.Errorf("state: best MRR %g, want the periodic score of iteration %d, %g", st.BestMRR, tc.wantBest, want)
			}
			log, err := os.ReadFile(filepath.Join(dir, checkpoint.LogFile))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(log), `"confirm_best_iteration":4`) {
				t.Errorf("log.jsonl has no record of the check:\n%s", log)
			}
			// A second resume has nothing left to check.
			o.Resume = true
			if _, err := Run(context.Background(), cfg, d, o); err != nil {
				t.Fatal(err)
			}
			if len(calls) != 2 {
				t.Errorf("a checked run was checked again")
			}
		})
	}
}

// TestConfirmBaseline: a baseline's best checkpoint is loaded through the
// registry and scored like GammaE's.
func TestConfirmBaseline(t *testing.T) {
	d := tinyDataset(t)
	cfg := tinyConfig()
	cfg.Structures = betae.Kind.Structures
	cfg.Steps, cfg.ValidEvery, cfg.CheckpointEvery, cfg.ValidQueries, cfg.ConfirmQueries = 8, 4, 4, 3, 5
	config, err := json.Marshal(betae.Config{Entities: d.KG.Train.N, Relations: d.KG.Train.R, Dim: 4, Hidden: 6, Layers: 2, Gamma: 12, Union: "dnf"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := betae.Kind.New(config, 3)
	if err != nil {
		t.Fatal(err)
	}
	periodic := []float64{0.9, 0.1}
	var scored []qe.Model
	dir := t.TempDir()
	_, err = RunModel(context.Background(), cfg, m, config, d, Options{Dir: dir, NewModel: registry.New,
		ValidateModel: func(context.Context, qe.Model) (float64, map[string]float64, error) {
			v := periodic[0]
			periodic = periodic[1:]
			return v, nil, nil
		},
		ConfirmModel: func(_ context.Context, m qe.Model) (float64, map[string]float64, error) {
			scored = append(scored, m)
			return []float64{0.8, 0.2}[len(scored)-1], nil, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(scored) != 2 || scored[0] == scored[1] || slices.Equal(scored[0].Params()[0].Data, scored[1].Params()[0].Data) {
		t.Fatalf("confirmation scored %d models; want the live one and iteration 4's, which differ", len(scored))
	}
	if it, err := fileIteration(filepath.Join(dir, checkpoint.BestFile)); err != nil || it != 8 {
		t.Errorf("best.safetensors holds iteration %d (%v), want the last, 8", it, err)
	}
}
