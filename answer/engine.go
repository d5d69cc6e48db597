// Package answer answers questions written in the query language with a
// trained model: it parses, embeds, scores every entity, and marks which
// answers the known graph already entails. It implements serve.Engine and
// serve.BatchEngine, and `gammae query` uses it directly.
//
// Concurrent calls are coalesced: while one batch runs, the queries that
// arrive queue up and then run together as the next batch, so that the
// model's weights and the entity features are read from memory once per
// batch rather than once per query (see batcher).
package answer

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gammae/gammae/gamma"
	"github.com/gammae/gammae/kg"
	"github.com/gammae/gammae/qe"
	"github.com/gammae/gammae/qlang"
	"github.com/gammae/gammae/query"
	"github.com/gammae/gammae/serve"
)

// Engine answers queries over one knowledge graph with one model. It is
// safe for concurrent use.
type Engine struct {
	kg       *kg.KG
	model    *gamma.Model[float32]
	qm       qe.Model // a baseline instead of GammaE (NewModel)
	resolver *qlang.DictResolver
	info     serve.Info
	complete *completer
	progs    programs
	batch    batcher
	scratch  sync.Pool // *scratch, for AnswerQueries and the batch loop
}

var _ serve.BatchEngine = (*Engine)(nil)

// Result is the answer to one query with what the HTTP result has no field
// for.
type Result struct {
	serve.Result
	// ObservedAnswers is the number of answers entailed by the known graph
	// (exact execution), of which Answers shows those in the top k.
	ObservedAnswers int `json:"observed_answers"`
}

// New returns an engine over graph k and model m. info describes them for
// clients: Entities, Relations, Dim and Union are filled in from m, and
// Examples, when nil, with queries grounded in k's train graph (Examples).
// Labels must be set on k's dictionaries before New: the resolver indexes
// them.
func New(k *kg.KG, m *gamma.Model[float32], info serve.Info) *Engine {
	c := m.Config()
	info.Entities, info.Relations, info.Dim, info.Union = c.Entities, c.Relations, c.Dim, string(c.Mode())
	if info.Model == "" {
		info.Model = "GammaE"
	}
	e := &Engine{kg: k, model: m}
	e.init(info)
	e.progs.mode = c.Mode()
	return e
}

// NewModel returns an engine over graph k and a baseline model m (GQE,
// Query2Box, BetaE, ConE). info.Model should name it, and info.Dim give its
// dimension; Entities and Relations are filled in from k.
func NewModel(k *kg.KG, m qe.Model, info serve.Info) *Engine {
	info.Entities, info.Relations = k.Entities.Len(), k.Relations.Len()
	if info.Model == "" {
		info.Model = m.Kind()
	}
	e := &Engine{kg: k, qm: m}
	e.init(info)
	// Examples the model refuses (negation for GQE and Query2Box) are
	// neither offered nor used to warm up.
	scratch := make([]float64, k.Entities.Len())
	var kept []serve.Example
	for _, x := range e.info.Examples {
		if q, err := e.Parse(x.Query); err == nil && m.Scores(q, scratch) == nil {
			kept = append(kept, x)
		}
	}
	e.info.Examples = kept
	return e
}

// init sets what every engine has: the resolver, examples, completion and
// the batch loop.
func (e *Engine) init(info serve.Info) {
	k := e.kg
	if info.Syntax == "" {
		info.Syntax = Syntax
	}
	e.resolver = qlang.NewDictResolver(&k.Entities, &k.Relations)
	if info.Examples == nil {
		info.Examples = Examples(k, e.resolver)
	}
	e.info = info
	e.complete = newCompleter(e.resolver)
	e.batch.run = e.runBatch
	e.batch.max = maxBatch
	e.batch.linger = linger
}

// Syntax is the one-paragraph help on the query language shown to users.
const Syntax = `Logic form: ?y : exists x . rel(Anchor, x) & rel2(x, ?y) & !rel3(Other, ?y) — atoms rel(a, b) are edges a→b; write them the other way round for the inverse; & and, | or, ! not. Functional form: i(p(Anchor, rel), n(p(Other, rel3))) with p(ojection), i(ntersection), u(nion), n(egation). Quote names with spaces: "Steven Spielberg"; #123 is a raw entity id.`

// Info describes the model and data set.
func (e *Engine) Info() serve.Info { return e.info }

// Resolver is the name resolver of the engine's graph.
func (e *Engine) Resolver() *qlang.DictResolver { return e.resolver }

// Parse parses a query text; errors carry their position (serve.Positioner).
func (e *Engine) Parse(text string) (query.Node, error) {
	q, err := qlang.Parse(text, e.resolver)
	if err != nil {
		var qe *qlang.Error
		if errors.As(err, &qe) {
			return nil, &serve.QueryError{Line: qe.Pos.Line, Col: qe.Pos.Column, Err: err}
		}
		return nil, err
	}
	return q, nil
}

// Answer parses text and returns its k best answers. Concurrent calls are
// answered in shared batches.
func (e *Engine) Answer(ctx context.Context, text string, k int) (*serve.Result, error) {
	q, err := e.Parse(text)
	if err != nil {
		return nil, err
	}
	r, err := e.AnswerQuery(ctx, q, k)
	if err != nil {
		return nil, err
	}
	return &r.Result, nil
}

// AnswerQuery returns the k best answers of a parsed query. Concurrent calls
// are answered in shared batches.
func (e *Engine) AnswerQuery(ctx context.Context, q query.Node, k int) (*Result, error) {
	it := &item{ctx: ctx, q: q, k: k, start: time.Now(), callerPrepares: true}
	// The exact execution and the formatting need no model: do them here,
	// in the caller's goroutine, while the batch runs, rather than inside
	// the batch that every queued query waits for or before queueing,
	// where the last query a batch gathers would hold it up.
	p := e.batch.enqueue(it)
	e.prepare(it)
	if err := p.wait(ctx); err != nil {
		return nil, err
	}
	if it.err != nil {
		return nil, it.err
	}
	return e.finish(it)
}

// AnswerBatch parses and answers several queries (serve.BatchEngine): they
// run together, sharing the model's passes. errs[i] is the error of
// queries[i].
func (e *Engine) AnswerBatch(ctx context.Context, texts []string, k int) ([]*serve.Result, []error) {
	results := make([]*serve.Result, len(texts))
	errs := make([]error, len(texts))
	var items []*item
	for i, t := range texts {
		q, err := e.Parse(t)
		if err != nil {
			errs[i] = err
			continue
		}
		items = append(items, &item{ctx: ctx, q: q, k: k, start: time.Now(), index: i, callerPrepares: true})
	}
	p := e.batch.enqueue(items...)
	for _, it := range items {
		e.prepare(it) // as in AnswerQuery
	}
	if err := p.wait(ctx); err != nil {
		for _, it := range items {
			errs[it.index] = err
		}
		return results, errs
	}
	for _, it := range items {
		if it.err == nil {
			it.res, it.err = e.finish(it)
		}
		if it.err != nil {
			errs[it.index] = it.err
			continue
		}
		results[it.index] = &it.res.Result
	}
	return results, errs
}

// AnswerQueries answers parsed queries in the calling goroutine, as one
// batch (or several of at most maxBatch), without waiting for other callers:
// for batch jobs such as `gammae query --file`. errs[i] is the error of
// qs[i]; a result's TookMS is its share of its batch's time.
func (e *Engine) AnswerQueries(ctx context.Context, qs []query.Node, k int) ([]*Result, []error) {
	items := make([]*item, len(qs))
	now := time.Now()
	for i, q := range qs {
		items[i] = &item{ctx: ctx, q: q, k: k, start: now}
	}
	for lo := 0; lo < len(items); lo += maxBatch {
		batch := items[lo:min(lo+maxBatch, len(items))]
		start := time.Now()
		e.runBatch(batch)
		// Each query's time is its share of its batch: a query's own
		// latency means nothing when all were asked at once.
		share := float64(time.Since(start).Microseconds()) / 1000 / float64(len(batch))
		for _, it := range batch {
			if it.res != nil {
				it.res.TookMS = share
			}
		}
	}
	results := make([]*Result, len(qs))
	errs := make([]error, len(qs))
	for i, it := range items {
		results[i], errs[i] = it.res, it.err
	}
	return results, errs
}

// Warm answers the engine's examples once, so that the first client does
// not wait for the entity features to be computed and the buffers to grow.
func (e *Engine) Warm(ctx context.Context) error {
	var qs []query.Node
	for _, x := range e.info.Examples {
		if q, err := e.Parse(x.Query); err == nil {
			qs = append(qs, q)
		}
	}
	if len(qs) == 0 { // no examples: any 1p computes the features
		qs = append(qs, query.Projection{Arg: query.Anchor{Entity: 0}, Relation: 0})
	}
	_, errs := e.AnswerQueries(ctx, qs, 10)
	return errors.Join(errs...)
}

// Complete returns entity and relation names starting with prefix.
func (e *Engine) Complete(prefix string, limit int) []serve.Suggestion {
	return e.complete.complete(prefix, limit)
}

func structureName(q query.Node) string {
	if n := query.Name(q); n != "" {
		return n
	}
	return query.Shape(q)
}

func labelOrEmpty(d *kg.Dict, id int32) string {
	if int(id) < len(d.Labels) {
		return d.Labels[id]
	}
	return ""
}

// programs caches compiled programs by query shape: a Workspace keeps its
// buffers per *Program, so reusing programs is what lets it stop
// allocating.
type programs struct {
	mode gamma.Union
	mu   sync.Mutex
	m    map[string]*gamma.Program
	gen  uint64 // bumped when the cache is dropped
}

// maxPrograms bounds the cache; users can write arbitrarily many shapes.
const maxPrograms = 256

// get returns the program of q's shape and the cache generation it belongs
// to.
func (p *programs) get(q query.Node) (*gamma.Program, uint64, error) {
	shape := query.Shape(q)
	p.mu.Lock()
	defer p.mu.Unlock()
	if prog, ok := p.m[shape]; ok {
		return prog, p.gen, nil
	}
	prog, err := gamma.Compile(q, p.mode)
	if err != nil {
		return nil, 0, fmt.Errorf("compile query: %w", err)
	}
	if p.m == nil || len(p.m) >= maxPrograms {
		// Start over: workspaces of the old generation are dropped with
		// their per-program buffers (scratch.gen).
		p.m = make(map[string]*gamma.Program)
		p.gen++
	}
	p.m[shape] = prog
	return prog, p.gen, nil
}
