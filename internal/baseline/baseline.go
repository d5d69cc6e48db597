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
	// Embed records the embeddings of a group of union-free queries of one
	// structure, one row each (their anchors and relations already checked
	// against the model's sizes; t.Rows() is len(g)).
	Embed(t *ad.Tape, g Group) (Emb, error)
	// Logits records the logits of each row's candidates: ids holds k
	// entities per row, and the value is Rows() rows of k.
	Logits(t *ad.Tape, q Emb, ids []int32) ad.V
	// Uncertainty is the size of a one-row embedding (its values), and
	// false when the model has no such measure.
	Uncertainty(t *ad.Tape, q Emb) (float64, bool)
	// Entities and Relations are the table sizes.
	Entities() int
	Relations() int
}

// Scorer is a Net that scores every entity directly, without a tape (and
// may cache what it derives from the entity table until ParamsChanged).
type Scorer interface {
	// ScoreAll writes, for each of the embedding's rows r, the logits of
	// every entity to dst[r·N:(r+1)·N] (len(dst)/N rows).
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
	// Float32 makes Gradient's linear layers float32 matrix products (as
	// GammaE trains); scoring, embedding and the float64 parity and
	// gradient checks do not use it.
	Float32 bool
	// Loss turns the batch's logits into its loss and their gradient; nil
	// is qe.BatchLoss, the authors' (SetObjective).
	Loss qe.LossFunc
}

var _ qe.Stateful = Model{}

// UseFloat32 sets Float32.
func (m *Model) UseFloat32() { m.Float32 = true }

// SetObjective sets the training loss (qe.Objectived).
func (m *Model) SetObjective(o qe.Objective) error {
	f, err := o.Func()
	if err != nil {
		return err
	}
	m.Loss = f
	return nil
}

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

// embed records the DNF branches of a group of queries of one structure
// (t.Rows() of them): each branch's embeddings, one row per query.
func (m Model) embed(t *ad.Tape, qs []query.Node) ([]Emb, error) {
	var branches [][]query.Node // per query
	for _, q := range qs {
		if err := m.check(q); err != nil {
			return nil, err
		}
		if m.DeMorgan {
			q = query.DeMorgan(q)
		}
		branches = append(branches, query.DNF(q))
	}
	out := make([]Emb, len(branches[0]))
	for b := range out {
		g := make(Group, len(qs))
		for i := range qs {
			g[i] = branches[i][b]
		}
		e, err := m.Net.Embed(t, g)
		if err != nil {
			return nil, fmt.Errorf("%v (query %s)", err, query.Shape(qs[0]))
		}
		out[b] = e
	}
	return out, nil
}

// Embed returns the values of q's embedding, one per DNF branch.
func (m Model) Embed(q query.Node) ([][][]float64, error) {
	t := ad.NewTape(true)
	bs, err := m.embed(t, []query.Node{q})
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

// logits records the logits of each row's candidates: the best branch's.
func (m Model) logits(t *ad.Tape, bs []Emb, ids []int32) ad.V {
	if len(bs) == 1 {
		return m.Net.Logits(t, bs[0], ids)
	}
	ls := make([]ad.V, len(bs))
	for i, b := range bs {
		ls[i] = m.Net.Logits(t, b, ids)
	}
	return t.MaxOver(ls)
}

// Scores writes the logit of every entity for q into dst.
func (m Model) Scores(q query.Node, dst []float64) error {
	if len(dst) != m.Net.Entities() {
		return fmt.Errorf("%s: %d scores asked for %d entities", m.Kind(), len(dst), m.Net.Entities())
	}
	t := ad.NewTape(true)
	bs, err := m.embed(t, []query.Node{q})
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

var _ qe.BatchScorer = Model{}

// ScoresBatch is Scores of each of qs, which share one structure, with
// their embeddings recorded together: the linear layers are one product
// for all of them (float32 products when the model trains with them,
// Model.Float32; else float64, the same values as Scores).
func (m Model) ScoresBatch(qs []query.Node, dst []float64) error {
	n := m.Net.Entities()
	if len(dst) != len(qs)*n {
		return fmt.Errorf("%s: %d scores asked for %d queries × %d entities", m.Kind(), len(dst), len(qs), n)
	}
	if len(qs) == 0 {
		return nil
	}
	sig := signature(qs[0])
	for _, q := range qs[1:] {
		if signature(q) != sig {
			return fmt.Errorf("%s: a batch of queries of structures %s and %s", m.Kind(), query.Shape(qs[0]), query.Shape(q))
		}
	}
	t := ad.NewTape(true)
	if m.Float32 {
		t.SetFloat32(ad.NewWeights32())
	}
	t.SetRows(len(qs))
	bs, err := m.embed(t, qs)
	if err != nil {
		return err
	}
	sc, ok := m.Net.(Scorer)
	if !ok {
		for i, q := range qs {
			if err := m.Scores(q, dst[i*n:(i+1)*n]); err != nil {
				return err
			}
		}
		return nil
	}
	sc.ScoreAll(t, bs[0], dst)
	if len(bs) > 1 {
		tmp := make([]float64, len(dst))
		for _, b := range bs[1:] {
			sc.ScoreAll(t, b, tmp)
			for j, v := range tmp {
				dst[j] = math.Max(dst[j], v)
			}
		}
	}
	return nil
}

// tapeScores computes the logits through the recorded operations, the
// specification ScoreAll is tested against.
func (m Model) tapeScores(t *ad.Tape, bs []Emb, dst []float64) {
	ids := make([]int32, len(dst))
	for e := range ids {
		ids[e] = int32(e)
	}
	copy(dst, t.Val(m.logits(t, bs, ids)))
}

// TapeScores is Scores through the recorded operations only (for tests).
func (m Model) TapeScores(q query.Node, dst []float64) error {
	t := ad.NewTape(true)
	bs, err := m.embed(t, []query.Node{q})
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
// grouped by structure (and number of negatives); every group is split
// over GOMAXPROCS goroutines, each with its own tape and gradient buffers,
// summed at the end.
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
	// The parameters may have changed since the last call (a step, or a
	// test's finite differences): nothing cached of them is used.
	m.ParamsChanged()
	groups := groupRows(batch)
	k := max(1, min(runtime.GOMAXPROCS(0), len(batch)/8))
	var w32 *ad.Weights32
	if m.Float32 {
		w32 = ad.NewWeights32()
	}
	chunks := make([]chunk, k)
	for c := range chunks {
		for _, g := range groups {
			lo, hi := c*len(g)/k, (c+1)*len(g)/k
			if lo < hi {
				chunks[c].rows = append(chunks[c].rows, g[lo:hi])
			}
		}
		if m.Dropout != nil {
			chunks[c].rng = rand.New(rand.NewPCG(m.Dropout.Uint64(), uint64(c)))
		}
		chunks[c].w32 = w32
	}
	pos := make([]float64, len(batch))
	neg := make([][]float64, len(batch))
	w := make([]float64, len(batch))
	if err := parallel(chunks, func(c *chunk) error { return m.forward(c, batch, pos, neg, w) }); err != nil {
		return qe.Loss{}, err
	}
	lossFunc := m.Loss
	if lossFunc == nil {
		lossFunc = qe.BatchLoss
	}
	loss, dpos, dneg, err := lossFunc(pos, neg, w)
	if err != nil {
		return qe.Loss{}, err
	}
	parallel(chunks, func(c *chunk) error {
		for gi, rows := range c.rows {
			g := c.tape.G(c.logits[gi])
			k := len(g) / len(rows)
			for i, r := range rows {
				g[i*k] += dpos[r]
				for j, v := range dneg[r] {
					g[i*k+1+j] += v
				}
			}
		}
		c.tape.Backward()
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

// groupRows groups the batch's indices by query structure and number of
// negatives, in order of first appearance.
func groupRows(batch []qe.Example) [][]int {
	type key struct {
		sig  string
		negs int
	}
	index := map[key]int{}
	var out [][]int
	for r, ex := range batch {
		k := key{signature(ex.Query), len(ex.Negatives)}
		g, ok := index[k]
		if !ok {
			g = len(out)
			index[k] = g
			out = append(out, nil)
		}
		out[g] = append(out[g], r)
	}
	return out
}

// chunk is the share of a batch one goroutine computes: a slice of rows of
// each group.
type chunk struct {
	rows   [][]int // batch indices, per group
	rng    *rand.Rand
	w32    *ad.Weights32
	tape   *ad.Tape
	sink   map[*ad.Param][]float64
	logits []ad.V // per group: rows of [positive, negatives…]
}

// forward records the chunk's logits on its own tape.
func (m Model) forward(c *chunk, batch []qe.Example, pos []float64, neg [][]float64, w []float64) error {
	c.tape, c.sink = ad.NewTape(false), map[*ad.Param][]float64{}
	t := c.tape
	t.SetSink(c.sink)
	t.SetRand(c.rng)
	t.SetFloat32(c.w32)
	c.logits = make([]ad.V, len(c.rows))
	for gi, rows := range c.rows {
		t.SetRows(len(rows))
		qs := make([]query.Node, len(rows))
		k := 1 + len(batch[rows[0]].Negatives)
		ids := make([]int32, 0, len(rows)*k)
		for i, r := range rows {
			qs[i] = batch[r].Query
			ids = append(ids, batch[r].Positive)
			ids = append(ids, batch[r].Negatives...)
		}
		bs, err := m.embed(t, qs)
		if err != nil {
			return err
		}
		c.logits[gi] = m.logits(t, bs, ids)
		vals := t.Val(c.logits[gi])
		for i, r := range rows {
			pos[r] = vals[i*k]
			neg[r] = vals[i*k+1 : (i+1)*k]
			w[r] = batch[r].Weight
		}
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
	bs, err := m.embed(t, []query.Node{q})
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
