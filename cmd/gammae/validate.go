package main

import (
	"context"

	"github.com/gammae/gammae/dataset"
	"github.com/gammae/gammae/evaluate"
	"github.com/gammae/gammae/gamma"
	"github.com/gammae/gammae/train"
)

// validator returns the trainer's periodic validation: filtered MRR on a
// fixed sample of perStructure of d's validation queries per structure
// (drawn with seed), averaged over the positive structures like the
// paper's tables.
func validator(d *dataset.Dataset, perStructure int, seed uint64) train.ValidateFunc {
	if len(d.Valid.Groups) == 0 {
		return nil
	}
	return func(ctx context.Context, m *gamma.Model[float32]) (float64, map[string]float64, error) {
		r, err := evaluate.Run(ctx, m, &d.Valid, evaluate.Options{PerStructure: perStructure, Seed: seed})
		if err != nil {
			return 0, nil, err
		}
		return r.Table.Positive.MRR, r.Table.MRR(), nil
	}
}

// confirmSeed draws the end-of-run check's sample (train.Config's
// ConfirmQueries) apart from the periodic one, whose lucky checkpoint it
// is there to question.
func confirmSeed(seed uint64) uint64 { return seed ^ 0xc0f1 }
