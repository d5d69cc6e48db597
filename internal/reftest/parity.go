package reftest

import (
	"fmt"
	"math"
	"slices"

	"github.com/gammae/gammae/optim"
	"github.com/gammae/gammae/qe"
	"github.com/gammae/gammae/query"
)

// Embedder is a model whose query embeddings can be compared with the
// reference's, by the file's keys (one row per DNF branch).
type Embedder interface {
	qe.Model
	Embed(q query.Node) (map[string][][]float64, error)
}

// SetParams copies the reference's parameters into m (by name; the order
// and shapes must agree).
func (r *Reference) SetParams(m qe.Model) error {
	ps := m.Params()
	if len(ps) != len(r.Params) {
		return fmt.Errorf("model has %d parameters, the reference %d", len(ps), len(r.Params))
	}
	for i, p := range ps {
		rp := r.Params[i]
		if p.Name != rp.Name || !slices.Equal(p.Shape, rp.Shape) || len(p.Data) != len(rp.Data) {
			return fmt.Errorf("parameter %d: model %s %v, reference %s %v", i, p.Name, p.Shape, rp.Name, rp.Shape)
		}
		copy(p.Data, rp.Data)
	}
	m.ParamsChanged()
	return nil
}

// Parity compares m, with the reference's parameters, to every number of
// the reference: query embeddings, logits, the train step's loss and
// gradients, and the parameters after one Adam step. It returns one line
// per quantity that differs by more than tol relative to max(1, |want|),
// and the largest relative error.
func (r *Reference) Parity(m Embedder, tol float64) (bad []string, worst float64) {
	if err := r.SetParams(m); err != nil {
		return []string{err.Error()}, math.Inf(1)
	}
	cmp := func(what string, got, want []float64) {
		if len(got) != len(want) {
			bad = append(bad, fmt.Sprintf("%s: %d values, want %d", what, len(got), len(want)))
			return
		}
		for i := range got {
			e := math.Abs(got[i]-want[i]) / math.Max(1, math.Abs(want[i]))
			if math.IsNaN(e) {
				e = math.Inf(1)
			}
			worst = math.Max(worst, e)
			if e > tol {
				bad = append(bad, fmt.Sprintf("%s[%d] = %.12g, want %.12g", what, i, got[i], want[i]))
				return
			}
		}
	}
	n := r.Params[0].Shape[0] // entities: rows of entity_embedding
	for i, q := range r.Queries {
		name := fmt.Sprintf("query %d (%s)", i, q.Name)
		emb, err := m.Embed(q.Node)
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		for key, rows := range q.Embedding {
			got := emb[key]
			if len(got) != len(rows) {
				bad = append(bad, fmt.Sprintf("%s embedding %s: %d rows, want %d", name, key, len(got), len(rows)))
				continue
			}
			for j := range rows {
				cmp(fmt.Sprintf("%s embedding %s row %d", name, key, j), got[j], rows[j])
			}
		}
		logits := make([]float64, n)
		if err := m.Scores(q.Node, logits); err != nil {
			bad = append(bad, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		cmp(name+" logits", logits, q.Logits)
	}

	ts := &r.TrainStep
	batch := make([]qe.Example, len(ts.Queries))
	for i, q := range ts.Queries {
		batch[i] = qe.Example{Query: q, Positive: ts.Positive[i], Negatives: ts.Negative[i], Weight: ts.Weight[i]}
	}
	grads := qe.LikeParams(m.Params())
	loss, err := m.Gradient(batch, grads)
	if err != nil {
		return append(bad, "train step: "+err.Error()), math.Inf(1)
	}
	cmp("loss", []float64{loss.Loss, loss.Positive, loss.Negative}, []float64{ts.Loss, ts.PositiveSampleLoss, ts.NegativeSampleLoss})
	for _, g := range grads {
		cmp("gradient of "+g.Name, g.Data, ts.Grads[g.Name])
	}
	opt := optim.NewAdam[float64](ts.Adam.LR)
	opt.Beta1, opt.Beta2, opt.Eps = ts.Adam.Betas[0], ts.Adam.Betas[1], ts.Adam.Eps
	ps := m.Params()
	pd, gd := make([][]float64, len(ps)), make([][]float64, len(ps))
	for i := range ps {
		pd[i], gd[i] = ps[i].Data, grads[i].Data
		if _, ok := ts.Grads[ps[i].Name]; !ok {
			pd[i], gd[i] = nil, nil // no gradient in the reference: torch leaves it
		}
	}
	if err := opt.Step(pd, gd); err != nil {
		return append(bad, "adam: "+err.Error()), math.Inf(1)
	}
	for _, p := range ps {
		if want, ok := ts.Adam.After[p.Name]; ok {
			cmp("after one Adam step, "+p.Name, p.Data, want)
		}
	}
	return bad, worst
}
