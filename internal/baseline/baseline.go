// Package baseline is what the four baselines of the paper's comparison
// share: a Net (the model's own parameters, query embedding and distance,
// recorded on an ad.Tape) becomes a qe.Model, with DNF unions scored by
// their best branch, the batch loss of SPEC section 4 and exact gradients.
package baseline

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

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

// Scorer is a Net that scores every entity directly, without a tape (and
// may cache what it derives from the entity table until ParamsChanged).
type Scorer interface {
	ScoreAll(t *ad.Tape, q Emb, dst []float64)
	ParamsChanged()
}

// Model is a Net behind qe.Model.
type Model struct {
	Net Net
	// DeMorgan answers unions as ¬(¬A ∧ ¬B) (BetaE's and ConE's "dm"
	// option) instead of by their best DNF branch.
	DeMorgan bool
	// Dropout, for nets that draw training-time masks (ConE), seeds each
	// gradient chunk's tape in turn; its state is checkpointed
	// (qe.Stateful), so that a resumed run draws the same masks.
	Dropout *rand.PCG
}

var _ qe.Stateful = Model{}

// RNGState is the dropout source's state (nil when there is none).
func (m Model) RNGState() ([]byte, error) {
	if m.Dropout == nil {
		return nil, nil
	}
	return m.Dropout.MarshalBinary()
}

// SetRNGState restores a state saved by RNGState.
func (m Model) SetRNGState(b []byte) error {
	if m.Dropout == nil || len(b) == 0 {
		return nil
	}
	return m.Dropout.UnmarshalBinary(b)
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
	if sc, ok := m.Net.(Scorer); ok {
		sc.ScoreAll(t, bs[0], dst)
		if len(bs) > 1 {
			tmp := make([]float64, len(dst))
			for _, b := range bs[1:] {
				sc.ScoreAll(t, b, tmp)
				for i, v := range tmp {
					dst[i] = math.Max(dst[i], v)
				}
			}
		}
		return nil
	}
	m.tapeScores(t, bs, dst)
	return nil
}

// tapeScores computes the logits through the recorded operations, the
// specification ScoreAll is tested against.
func (m Model) tapeScores(t *ad.Tape, bs []Emb, dst []float64) {
	for e := range dst {
		mark := t.Mark()
		dst[e] = t.Val(m.logit(t, bs, int32(e)))[0]
		t.Rewind(mark)
	}
}

// TapeScores is Scores through the recorded operations only (for tests).
func (m Model) TapeScores(q query.Node, dst []float64) error {
	t := ad.NewTape(true)
	bs, err := m.embed(t, q)
	if err != nil {
		return err
	}
	m.tapeScores(t, bs, dst)
	return nil
}

// ParamsChanged drops what the net cached of its parameters.
func (m Model) ParamsChanged() {
	if sc, ok := m.Net.(Scorer); ok {
		sc.ParamsChanged()
	}
}

// Gradient sets grads to the gradient of the batch loss. The batch is
// split over GOMAXPROCS goroutines, each with its own tape and gradient
// buffers, summed at the end.
func (m Model) Gradient(batch []qe.Example, grads []qe.Tensor) (qe.Loss, error) {
	ps := m.Net.Params()
	if len(grads) != len(ps) {
		return qe.Loss{}, fmt.Errorf("%s: %d gradient tensors for %d parameters", m.Kind(), len(grads), len(ps))
	}
	for i, p := range ps {
		if len(grads[i].Data) != len(p.Data) {
			return qe.Loss{}, fmt.Errorf("%s: gradient of %s has %d values, want %d", m.Kind(), p.Name, len(grads[i].Data), len(p.Data))
		}
		clear(grads[i].Data)
	}
	for _, ex := range batch {
		if err := m.checkEntities(ex); err != nil {
			return qe.Loss{}, err
		}
	}
	k := max(1, min(runtime.GOMAXPROCS(0), len(batch)/8))
	chunks := make([]chunk, k)
	for c := range chunks {
		lo, hi := c*len(batch)/k, (c+1)*len(batch)/k
		chunks[c] = chunk{rows: batch[lo:hi], first: lo}
		if m.Dropout != nil {
			chunks[c].rng = rand.New(rand.NewPCG(m.Dropout.Uint64(), uint64(c)))
		}
	}
	pos := make([]float64, len(batch))
	neg := make([][]float64, len(batch))
	w := make([]float64, len(batch))
	if err := parallel(chunks, func(c *chunk) error { return m.forward(c, pos, neg, w) }); err != nil {
		return qe.Loss{}, err
	}
	loss, dpos, dneg, err := qe.BatchLoss(pos, neg, w)
	if err != nil {
		return qe.Loss{}, err
	}
	parallel(chunks, func(c *chunk) error {
		seeds := map[ad.V]float64{}
		for i, r := range c.logits {
			seeds[r.pos] += dpos[c.first+i]
			for j, v := range r.negs {
				seeds[v] += dneg[c.first+i][j]
			}
		}
		c.tape.Backward(seeds)
		return nil
	})
	for i, p := range ps {
		for _, c := range chunks {
			if g, ok := c.sink[p]; ok {
				dst := grads[i].Data
				for j, v := range g {
					dst[j] += v
				}
			}
		}
	}
	return loss, nil
}

// chunk is the share of a batch one goroutine computes.
type chunk struct {
	rows   []qe.Example
	first  int // index of rows[0] in the batch
	rng    *rand.Rand
	tape   *ad.Tape
	sink   map[*ad.Param][]float64
	logits []rowLogits
}

type rowLogits struct {
	pos  ad.V
	negs []ad.V
}

// forward records the chunk's logits on its own tape.
func (m Model) forward(c *chunk, pos []float64, neg [][]float64, w []float64) error {
	c.tape, c.sink = ad.NewTape(false), map[*ad.Param][]float64{}
	c.tape.SetSink(c.sink)
	c.tape.SetRand(c.rng)
	c.logits = make([]rowLogits, len(c.rows))
	for i, ex := range c.rows {
		t, r := c.tape, c.first+i
		bs, err := m.embed(t, ex.Query)
		if err != nil {
			return err
		}
		c.logits[i].pos = m.logit(t, bs, ex.Positive)
		pos[r] = t.Val(c.logits[i].pos)[0]
		neg[r] = make([]float64, len(ex.Negatives))
		c.logits[i].negs = make([]ad.V, len(ex.Negatives))
		for j, e := range ex.Negatives {
			c.logits[i].negs[j] = m.logit(t, bs, e)
			neg[r][j] = t.Val(c.logits[i].negs[j])[0]
		}
		w[r] = ex.Weight
	}
	return nil
}

// parallel runs f on every chunk, one goroutine each, and returns the
// first error.
func parallel(chunks []chunk, f func(*chunk) error) error {
	errs := make([]error, len(chunks))
	var wg sync.WaitGroup
	for i := range chunks {
		wg.Go(func() { errs[i] = f(&chunks[i]) })
	}
	wg.Wait()
	return errors.Join(errs...)
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

// EmbedMap returns the values of q's embedding by the reference vectors'
// names of the model's vectors (keys, in the order Net.Embed records them),
// one row per DNF branch.
func (m Model) EmbedMap(q query.Node, keys ...string) (map[string][][]float64, error) {
	bs, err := m.Embed(q)
	if err != nil {
		return nil, err
	}
	out := map[string][][]float64{}
	for _, b := range bs {
		for i, k := range keys {
			out[k] = append(out[k], b[i])
		}
	}
	return out, nil
}
