// Package baseline is what the four baselines of the paper's comparison
// share: a Net (the model's own parameters, query embedding and distance,
// recorded on an ad.Tape) becomes a qe.Model, with DNF unions scored by
// their best branch, the batch loss of SPEC section 4 and exact gradients.
package baseline

import (
	"fmt"

	"github.com/gammae/gammae/internal/ad"
	"github.com/gammae/gammae/qe"
	"github.com/gammae/gammae/query"
)

// Emb is a query embedding: the model's vectors on a tape (GQE: a point;
// Query2Box: center, offset; BetaE: α, β; ConE: axis, arg).
type Emb []ad.V

// Net is one model's parameters and geometry.
type Net interface {
	// Kind is the registry name.
	Kind() string
	// Params are the model's tensors in the authors' named_parameters
	// order.
	Params() []*ad.Param
	// Embed records the embedding of a union-free query (its anchors and
	// relations already checked against the model's sizes).
	Embed(t *ad.Tape, q query.Node) (Emb, error)
	// Logit records the logit of entity e for the embedding.
	Logit(t *ad.Tape, q Emb, e int32) ad.V
	// Uncertainty is the size of an embedding (its values), and false
	// when the model has no such measure.
	Uncertainty(t *ad.Tape, q Emb) (float64, bool)
	// Entities and Relations are the table sizes.
	Entities() int
	Relations() int
}

// Model is a Net behind qe.Model.
type Model struct {
	Net Net
	// DeMorgan answers unions as ¬(¬A ∧ ¬B) (BetaE's and ConE's "dm"
	// option) instead of by their best DNF branch.
	DeMorgan bool
}

var _ qe.Model = Model{}

// Kind is the net's registry name.
func (m Model) Kind() string { return m.Net.Kind() }

// Params returns the live tensors.
func (m Model) Params() []qe.Tensor {
	ps := m.Net.Params()
	out := make([]qe.Tensor, len(ps))
	for i, p := range ps {
		out[i] = qe.Tensor{Name: p.Name, Shape: shape(p), Data: p.Data}
	}
	return out
}

func shape(p *ad.Param) []int {
	if p.Rows == 1 && isVector(p.Name) {
		return []int{p.Cols}
	}
	return []int{p.Rows, p.Cols}
}

// isVector tells the 1-D tensors (biases, scalars) from [1, n] matrices.
func isVector(name string) bool {
	n := len(name)
	return (n > 5 && name[n-5:] == ".bias") || name == "modulus"
}

// check refuses ids outside the model's tables.
func (m Model) check(q query.Node) error {
	var err error
	var walk func(n query.Node)
	walk = func(n query.Node) {
		if err != nil {
			return
		}
		switch n := n.(type) {
		case query.Anchor:
			if n.Entity < 0 || int(n.Entity) >= m.Net.Entities() {
				err = fmt.Errorf("%s: entity %d is not one of the model's %d", m.Kind(), n.Entity, m.Net.Entities())
			}
		case query.Projection:
			if n.Relation < 0 || int(n.Relation) >= m.Net.Relations() {
				err = fmt.Errorf("%s: relation %d is not one of the model's %d", m.Kind(), n.Relation, m.Net.Relations())
			}
			walk(n.Arg)
		case query.Negation:
			walk(n.Arg)
		case query.Intersection:
			for _, a := range n.Args {
				walk(a)
			}
		case query.Union:
			for _, a := range n.Args {
				walk(a)
			}
		}
	}
	walk(q)
	return err
}

// embed records the DNF branches of q.
func (m Model) embed(t *ad.Tape, q query.Node) ([]Emb, error) {
	if err := m.check(q); err != nil {
		return nil, err
	}
	if m.DeMorgan {
		q = query.DeMorgan(q)
	}
	var out []Emb
	for _, b := range query.DNF(q) {
		e, err := m.Net.Embed(t, b)
		if err != nil {
			return nil, fmt.Errorf("%v (query %s)", err, query.Shape(q))
		}
		out = append(out, e)
	}
	return out, nil
}

// Embed returns the values of q's embedding, one per DNF branch.
func (m Model) Embed(q query.Node) ([][][]float64, error) {
	t := ad.NewTape(true)
	bs, err := m.embed(t, q)
	if err != nil {
		return nil, err
	}
	out := make([][][]float64, len(bs))
	for i, b := range bs {
		for _, v := range b {
			out[i] = append(out[i], append([]float64(nil), t.Val(v)...))
		}
	}
	return out, nil
}

// logit records the logit of e: the best branch's.
func (m Model) logit(t *ad.Tape, bs []Emb, e int32) ad.V {
	if len(bs) == 1 {
		return m.Net.Logit(t, bs[0], e)
	}
	ls := make([]ad.V, len(bs))
	for i, b := range bs {
		ls[i] = m.Net.Logit(t, b, e)
	}
	return t.MaxScalar(ls)
}

// Scores writes the logit of every entity for q into dst.
func (m Model) Scores(q query.Node, dst []float64) error {
	if len(dst) != m.Net.Entities() {
		return fmt.Errorf("%s: %d scores asked for %d entities", m.Kind(), len(dst), m.Net.Entities())
	}
	t := ad.NewTape(true)
	bs, err := m.embed(t, q)
	if err != nil {
		return err
	}
	for e := range dst {
		mark := t.Mark()
		dst[e] = t.Val(m.logit(t, bs, int32(e)))[0]
		t.Rewind(mark)
	}
	return nil
}

// Gradient sets grads to the gradient of the batch loss.
func (m Model) Gradient(batch []qe.Example, grads []qe.Tensor) (qe.Loss, error) {
	ps := m.Net.Params()
	if len(grads) != len(ps) {
		return qe.Loss{}, fmt.Errorf("%s: %d gradient tensors for %d parameters", m.Kind(), len(grads), len(ps))
	}
	for i, p := range ps {
		if len(grads[i].Data) != len(p.Data) {
			return qe.Loss{}, fmt.Errorf("%s: gradient of %s has %d values, want %d", m.Kind(), p.Name, len(grads[i].Data), len(p.Data))
		}
		p.Grad = grads[i].Data
		clear(p.Grad)
	}
	defer func() {
		for _, p := range ps {
			p.Grad = nil
		}
	}()
	t := ad.NewTape(false)
	pos := make([]float64, len(batch))
	neg := make([][]float64, len(batch))
	w := make([]float64, len(batch))
	type row struct {
		pos  ad.V
		negs []ad.V
	}
	rows := make([]row, len(batch))
	for r, ex := range batch {
		bs, err := m.embed(t, ex.Query)
		if err != nil {
			return qe.Loss{}, err
		}
		if err := m.checkEntities(ex); err != nil {
			return qe.Loss{}, err
		}
		rows[r].pos = m.logit(t, bs, ex.Positive)
		pos[r] = t.Val(rows[r].pos)[0]
		neg[r] = make([]float64, len(ex.Negatives))
		rows[r].negs = make([]ad.V, len(ex.Negatives))
		for j, e := range ex.Negatives {
			rows[r].negs[j] = m.logit(t, bs, e)
			neg[r][j] = t.Val(rows[r].negs[j])[0]
		}
		w[r] = ex.Weight
	}
	loss, dpos, dneg, err := qe.BatchLoss(pos, neg, w)
	if err != nil {
		return qe.Loss{}, err
	}
	seeds := map[ad.V]float64{}
	for r := range rows {
		seeds[rows[r].pos] += dpos[r]
		for j, v := range rows[r].negs {
			seeds[v] += dneg[r][j]
		}
	}
	t.Backward(seeds)
	return loss, nil
}

func (m Model) checkEntities(ex qe.Example) error {
	n := m.Net.Entities()
	if ex.Positive < 0 || int(ex.Positive) >= n {
		return fmt.Errorf("%s: positive entity %d is not one of the model's %d", m.Kind(), ex.Positive, n)
	}
	for _, e := range ex.Negatives {
		if e < 0 || int(e) >= n {
			return fmt.Errorf("%s: negative entity %d is not one of the model's %d", m.Kind(), e, n)
		}
	}
	return nil
}

// Uncertainty is the net's size measure of q's first DNF branch (the
// paper's uncertainty tables leave unions out).
func (m Model) Uncertainty(q query.Node) (float64, bool) {
	t := ad.NewTape(true)
	bs, err := m.embed(t, q)
	if err != nil || len(bs) == 0 {
		return 0, false
	}
	return m.Net.Uncertainty(t, bs[0])
}
