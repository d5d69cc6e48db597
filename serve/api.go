package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// queryRequest is the body of POST /v1/query.
type queryRequest struct {
	Query string `json:"query"`
	K     *int   `json:"k"` // nil: Options.DefaultK
	// Explain also answers every node of the query tree (Result.Nodes).
	Explain bool `json:"explain"`
}

// batchRequest is the body of POST /v1/batch.
type batchRequest struct {
	Queries []string `json:"queries"`
	K       *int     `json:"k"`
}

// batchResponse answers a batch: one item per query, in order. A query that
// fails has an error item; the others still get their results.
type batchResponse struct {
	Results []batchItem `json:"results"`
}

type batchItem struct {
	Result *Result    `json:"result,omitempty"`
	Error  *ErrorBody `json:"error,omitempty"`
}

// entitiesResponse answers GET /v1/entities.
type entitiesResponse struct {
	Prefix      string       `json:"prefix"`
	Suggestions []Suggestion `json:"suggestions"`
}

// infoResponse answers GET /v1/info: the engine's info and the server limits
// a client should respect.
type infoResponse struct {
	Info
	Limits limits `json:"limits"`
}

type limits struct {
	DefaultK     int   `json:"default_k"`
	MaxK         int   `json:"max_k"`
	MaxBatch     int   `json:"max_batch"`
	MaxBodyBytes int64 `json:"max_body_bytes"`
	MaxComplete  int   `json:"max_complete"`
}

func (s *Server) query(w http.ResponseWriter, r *http.Request) error {
	var req queryRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	k, err := s.k(req.K)
	if err != nil {
		return err
	}
	if strings.TrimSpace(req.Query) == "" {
		return errorf(http.StatusBadRequest, `field "query" is empty; expected a query text`)
	}
	annotate(r.Context(), slog.String("query", clip(req.Query, 200)), slog.Int("k", k))
	res, err := s.answer(r.Context(), req.Query, k)
	if err != nil {
		return err
	}
	// An engine that cannot explain answers without nodes.
	if ex, ok := s.engine.(Explainer); ok && req.Explain {
		if res.Nodes, res.Variables, err = ex.ExplainNodes(r.Context(), req.Query, k); err != nil {
			return errorf(http.StatusBadRequest, "explain: %v", err)
		}
	}
	annotate(r.Context(), slog.String("structure", res.Structure), slog.Int("answers", len(res.Answers)))
	return writeJSON(w, http.StatusOK, res)
}

func (s *Server) batch(w http.ResponseWriter, r *http.Request) error {
	var req batchRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	k, err := s.k(req.K)
	if err != nil {
		return err
	}
	switch {
	case len(req.Queries) == 0:
		return errorf(http.StatusBadRequest, `field "queries" is empty; expected a list of query texts`)
	case len(req.Queries) > s.opts.MaxBatch:
		return errorf(http.StatusRequestEntityTooLarge, "batch has %d queries; at most %d are allowed", len(req.Queries), s.opts.MaxBatch)
	}
	for i, q := range req.Queries {
		if strings.TrimSpace(q) == "" {
			return errorf(http.StatusBadRequest, "queries[%d] is empty; expected a query text", i)
		}
	}
	annotate(r.Context(), slog.Int("queries", len(req.Queries)), slog.Int("k", k))

	results, errs := s.answerBatch(r.Context(), req.Queries, k)
	if err := r.Context().Err(); err != nil {
		return err
	}
	resp := batchResponse{Results: make([]batchItem, len(req.Queries))}
	failed := 0
	structures := make([]string, 0, len(req.Queries))
	for i := range req.Queries {
		if errs[i] != nil {
			he := classify(errs[i])
			if he.Status >= 500 {
				s.log.Error("batch query failed", slog.Int("index", i), slog.String("error", errs[i].Error()))
			}
			body := he.body()
			resp.Results[i].Error = &body
			failed++
			continue
		}
		resp.Results[i].Result = results[i]
		structures = append(structures, results[i].Structure)
	}
	annotate(r.Context(), slog.Int("failed", failed), slog.String("structures", strings.Join(structures, ",")))
	return writeJSON(w, http.StatusOK, resp)
}

func (s *Server) entities(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	prefix := q.Get("prefix")
	limit := 10
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > s.opts.MaxComplete {
			return errorf(http.StatusBadRequest, "limit %q: expected an integer in 1..%d", v, s.opts.MaxComplete)
		}
		limit = n
	}
	sugg := s.engine.Complete(prefix, limit)
	if len(sugg) > limit {
		sugg = sugg[:limit]
	}
	if sugg == nil {
		sugg = []Suggestion{}
	}
	return writeJSON(w, http.StatusOK, entitiesResponse{Prefix: prefix, Suggestions: sugg})
}

func (s *Server) info(w http.ResponseWriter, r *http.Request) error {
	return writeJSON(w, http.StatusOK, infoResponse{
		Info: s.engine.Info(),
		Limits: limits{
			DefaultK:     s.opts.DefaultK,
			MaxK:         s.opts.MaxK,
			MaxBatch:     s.opts.MaxBatch,
			MaxBodyBytes: s.opts.MaxBodyBytes,
			MaxComplete:  s.opts.MaxComplete,
		},
	})
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) error {
	return writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// decode reads one JSON object from the request body into v, within the
// body size limit, rejecting unknown fields and trailing data.
func (s *Server) decode(w http.ResponseWriter, r *http.Request, v any) error {
	if r.ContentLength > s.opts.MaxBodyBytes {
		return errorf(http.StatusRequestEntityTooLarge, "request body of %d bytes is larger than %d bytes", r.ContentLength, s.opts.MaxBodyBytes)
	}
	body := http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes)
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err
		}
		return errorf(http.StatusBadRequest, "invalid JSON: unexpected data after the request object")
	}
	return nil
}

// jsonError turns a decoding error into a client error that says what was
// expected.
func jsonError(err error) error {
	var (
		mbe *http.MaxBytesError
		se  *json.SyntaxError
		te  *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &mbe):
		return err // classify makes it a 413
	case errors.Is(err, io.EOF):
		return errorf(http.StatusBadRequest, `empty request body; expected a JSON object like {"query": "...", "k": 10}`)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errorf(http.StatusBadRequest, "invalid JSON: body ends in the middle of a value")
	case errors.As(err, &se):
		return errorf(http.StatusBadRequest, "invalid JSON at byte %d: %v", se.Offset, se)
	case errors.As(err, &te):
		if te.Field == "" {
			return errorf(http.StatusBadRequest, "invalid request: expected a JSON object, got %s", te.Value)
		}
		return errorf(http.StatusBadRequest, "invalid request: field %q must be %s, got %s", te.Field, jsonType(te.Type.Kind().String()), te.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return errorf(http.StatusBadRequest, "invalid request: %s", strings.TrimPrefix(err.Error(), "json: "))
	default:
		return &Error{Status: http.StatusBadRequest, Message: "invalid JSON: " + err.Error(), Err: err}
	}
}

// jsonType names a Go kind the way a JSON user would.
func jsonType(kind string) string {
	switch kind {
	case "int", "int32", "int64", "float64":
		return "a number"
	case "string":
		return "a string"
	case "slice":
		return "a list"
	case "struct", "map":
		return "an object"
	}
	return kind
}

// k checks the requested number of answers.
func (s *Server) k(k *int) (int, error) {
	if k == nil {
		return s.opts.DefaultK, nil
	}
	if *k < 1 || *k > s.opts.MaxK {
		return 0, errorf(http.StatusBadRequest, "k = %d is out of range; expected 1..%d", *k, s.opts.MaxK)
	}
	return *k, nil
}

// acquire takes an engine slot, waiting while all are busy.
func (s *Server) acquire(ctx context.Context) (release func(), err error) {
	select {
	case s.slots <- struct{}{}:
		s.trim.busy()
		return func() { <-s.slots; s.trim.done() }, nil
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, &Error{Status: http.StatusServiceUnavailable, Message: "server busy: no engine slot became free in time", Err: ctx.Err()}
		}
		return nil, ctx.Err()
	}
}

// answer runs one query on the engine within the query timeout.
func (s *Server) answer(ctx context.Context, query string, k int) (*Result, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.QueryTimeout)
	defer cancel()
	release, err := s.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	return s.call(ctx, query, k)
}

// call runs the engine on one query and checks what it returns.
func (s *Server) call(ctx context.Context, query string, k int) (*Result, error) {
	start := time.Now()
	res, err := s.engine.Answer(ctx, query, k)
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, fmt.Errorf("engine returned neither a result nor an error")
	}
	finish(res, k, time.Since(start))
	return res, nil
}

// finish fills what the engine may leave out and enforces k.
func finish(res *Result, k int, took time.Duration) {
	if len(res.Answers) > k {
		res.Answers = res.Answers[:k]
	}
	if res.Answers == nil {
		res.Answers = []Answer{}
	}
	if res.TookMS == 0 {
		res.TookMS = float64(took.Microseconds()) / 1000
	}
}

// answerBatch answers each query, with the engine's batch method when it has
// one. A failure of one query does not stop the others.
func (s *Server) answerBatch(ctx context.Context, queries []string, k int) ([]*Result, []error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.QueryTimeout)
	defer cancel()
	results := make([]*Result, len(queries))
	errs := make([]error, len(queries))

	if be, ok := s.engine.(BatchEngine); ok {
		release, err := s.acquire(ctx)
		if err != nil {
			for i := range errs {
				errs[i] = err
			}
			return results, errs
		}
		defer release()
		start := time.Now()
		rs, es := be.AnswerBatch(ctx, queries, k)
		took := time.Since(start) / time.Duration(len(queries))
		for i := range queries {
			switch {
			case i < len(es) && es[i] != nil:
				errs[i] = es[i]
			case i >= len(rs) || rs[i] == nil:
				errs[i] = fmt.Errorf("engine returned no result for batch query %d", i)
			default:
				results[i] = rs[i]
				finish(rs[i], k, took)
			}
		}
		return results, errs
	}

	// One slot per query, so that a big batch does not starve single queries.
	for i, q := range queries {
		if err := ctx.Err(); err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				err = &Error{Status: http.StatusServiceUnavailable, Message: "batch took too long; query not run", Err: err}
			}
			errs[i] = err
			continue
		}
		release, err := s.acquire(ctx)
		if err != nil {
			errs[i] = err
			continue
		}
		results[i], errs[i] = s.call(ctx, q, k)
		release()
	}
	return results, errs
}

// clip shortens s to at most n runes for logging.
func clip(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "…"
		}
		i++
	}
	return s
}
