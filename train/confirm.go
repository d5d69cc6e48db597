package train

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"

	"github.com/gammae/gammae/checkpoint"
)

// confirm checks the run's choice of best checkpoint on the larger
// validation sample of Config.ConfirmQueries: the best checkpoint and the
// last parameters are scored on it and the better becomes best.safetensors.
// The periodic sample is small and scores every checkpoint, so the one
// that tops it is partly the one it happens to favour; after the last
// learning-rate drop the last parameters are often as good or better.
func (t *trainer) confirm(ctx context.Context, sum *Summary) error {
	if t.opts.Dir == "" || t.cfg.ConfirmQueries <= 0 || !t.validating() || t.st.BestIter <= 0 || t.st.Confirmed == t.st.Iteration {
		return nil
	}
	if (t.q != nil && t.opts.ConfirmModel == nil) || (t.q == nil && t.opts.Confirm == nil) {
		return nil
	}
	if t.validIter != t.st.Iteration {
		// A finished run resumed for the check: the periodic score of its
		// last parameters, to record if they become the best.
		if err := t.validate(ctx, nil, sum); err != nil || ctx.Err() != nil {
			return err
		}
	}
	if t.st.BestIter != t.st.Iteration {
		bestPath := filepath.Join(t.opts.Dir, checkpoint.BestFile)
		last, err := t.confirmScore(ctx, "")
		if err != nil {
			return err
		}
		best, err := t.confirmScore(ctx, bestPath)
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return nil
		}
		t.writeLog(map[string]any{"step": t.st.Iteration, "confirm_queries": t.cfg.ConfirmQueries,
			"confirm_best_iteration": t.st.BestIter, "confirm_best_mrr": best, "confirm_last_mrr": last})
		was := t.st.BestIter
		keep := fmt.Sprintf("keeping iteration %d", was)
		if last > best {
			if err := t.checkFinite(); err != nil {
				return err
			}
			if err := t.saveModel(bestPath); err != nil {
				return err
			}
			keep = fmt.Sprintf("%s is now iteration %d", checkpoint.BestFile, t.st.Iteration)
			t.st.BestMRR, t.st.BestIter = t.validMRR, t.st.Iteration
		}
		t.logf("train: best checkpoint checked on %d validation queries a structure: iteration %d MRR %.4f, last (%d) %.4f; %s",
			t.cfg.ConfirmQueries, was, best, t.st.Iteration, last, keep)
	}
	t.st.Confirmed = t.st.Iteration
	return nil
}

// confirmScore is the MRR on the confirmation sample of the parameters in
// path, or of the live ones when path is "".
func (t *trainer) confirmScore(ctx context.Context, path string) (float64, error) {
	var mrr float64
	var err error
	switch {
	case t.q != nil && path == "":
		mrr, _, err = t.opts.ConfirmModel(ctx, t.q.model)
	case t.q != nil:
		m, _, _, lerr := checkpoint.LoadQE(path, t.opts.NewModel)
		if lerr != nil {
			return 0, lerr
		}
		mrr, _, err = t.opts.ConfirmModel(ctx, m)
	case path == "":
		mrr, _, err = t.opts.Confirm(ctx, t.model)
	default:
		m, _, lerr := checkpoint.LoadModel(path)
		if lerr != nil {
			return 0, lerr
		}
		if lerr := m.SetPrecision(t.cfg.Precision); lerr != nil {
			return 0, lerr
		}
		mrr, _, err = t.opts.Confirm(ctx, m)
	}
	if err != nil && ctx.Err() == nil {
		return 0, fmt.Errorf("checking the best checkpoint (%s): %w", cmp.Or(path, "last parameters"), err)
	}
	return mrr, nil
}
