package reftest

import "testing"

// TestLoadAll reads every model's reference file and checks its shape.
func TestLoadAll(t *testing.T) {
	for _, tc := range []struct {
		model   string
		params  int
		queries int
	}{
		{"gqe", 6, 18}, {"q2b", 11, 18}, {"betae", 12, 32}, {"cone", 18, 32}, {"gammae", 39, 32},
	} {
		t.Run(tc.model, func(t *testing.T) {
			r := Load(t, tc.model)
			if len(r.Params) != tc.params || len(r.Queries) != tc.queries {
				t.Fatalf("%d params, %d queries; want %d, %d", len(r.Params), len(r.Queries), tc.params, tc.queries)
			}
			if r.Params[0].Name != "entity_embedding" || len(r.TrainStep.Queries) != len(r.TrainStep.Positive) {
				t.Fatalf("first param %q, %d train queries for %d positives", r.Params[0].Name, len(r.TrainStep.Queries), len(r.TrainStep.Positive))
			}
		})
	}
}
