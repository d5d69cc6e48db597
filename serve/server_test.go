package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gammae/gammae/serve"
	"github.com/gammae/gammae/serve/servetest"
)

// gate is an engine whose Answer signals that it started and then waits for
// release (or its context).
type gate struct {
	servetest.Engine
	started chan struct{}
	release chan struct{}
}

func newGate() *gate { return &gate{started: make(chan struct{}, 16), release: make(chan struct{})} }

func (g *gate) Answer(ctx context.Context, q string, k int) (*serve.Result, error) {
	g.started <- struct{}{}
	select {
	case <-g.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return g.Engine.Answer(ctx, q, k)
}

// start serves s on a free loopback port; the returned channel gets Serve's
// result.
func start(t *testing.T, ctx context.Context, s *serve.Server) (url string, done <-chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan error, 1)
	go func() { ch <- s.Serve(ctx, ln) }()
	return "http://" + ln.Addr().String(), ch
}

func post(client *http.Client, url, body string) (int, string, error) {
	resp, err := client.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, err = b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String(), err
}

// TestGracefulShutdown cancels the context while a request is in the engine:
// the request must still complete, new connections must be refused, and
// Serve must return nil.
func TestGracefulShutdown(t *testing.T) {
	g := newGate()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	url, done := start(t, ctx, serve.New(g, serve.Options{ShutdownTimeout: 5 * time.Second}))

	type result struct {
		status int
		body   string
		err    error
	}
	inflight := make(chan result, 1)
	go func() {
		s, b, err := post(http.DefaultClient, url+"/v1/query", `{"query": "borders(spain)"}`)
		inflight <- result{s, b, err}
	}()
	<-g.started
	cancel()

	// Wait until the listener is closed, then check it refuses connections.
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", strings.TrimPrefix(url, "http://"), 100*time.Millisecond)
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("listener still accepting 5s after shutdown began")
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case err := <-done:
		t.Fatalf("Serve returned (%v) before the in-flight request finished", err)
	default:
	}

	close(g.release)
	r := <-inflight
	if r.err != nil || r.status != 200 || !strings.Contains(r.body, `"portugal"`) {
		t.Fatalf("in-flight request: status %d, err %v, body %s", r.status, r.err, r.body)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve = %v, want nil after a graceful shutdown", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after the last request finished")
	}
}

// TestForcedShutdown: a request that outlives the grace period is cut, and
// Serve says so.
func TestForcedShutdown(t *testing.T) {
	g := newGate() // never released
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	url, done := start(t, ctx, serve.New(g, serve.Options{ShutdownTimeout: 100 * time.Millisecond}))

	reqErr := make(chan error, 1)
	go func() {
		_, _, err := post(http.DefaultClient, url+"/v1/query", `{"query": "europe"}`)
		reqErr <- err
	}()
	<-g.started
	begin := time.Now()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Serve = %v, want an error wrapping context.DeadlineExceeded", err)
		}
		if d := time.Since(begin); d > 3*time.Second {
			t.Errorf("forced shutdown took %v", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after the grace period")
	}
	if err := <-reqErr; err == nil {
		t.Error("the cut request got a response")
	}
}

// TestListenError: a bad address fails at once.
func TestListenError(t *testing.T) {
	s := serve.New(&servetest.Engine{}, serve.Options{})
	if err := s.ListenAndServe(context.Background(), "127.0.0.1:-1"); err == nil {
		t.Fatal("ListenAndServe on port -1 succeeded")
	}
}

// TestConcurrent serves many clients from one engine and checks each answer.
func TestConcurrent(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	url, done := start(t, ctx, serve.New(&servetest.Engine{}, serve.Options{MaxInFlight: 2}))
	queries := map[string]string{ // query -> its best observed answer's structure
		"borders(spain)":                     "ep",
		"borders(france) & borders(germany)": "2i(ep,ep)",
		"speaks(borders(spain))":             "epp",
		"!europe":                            "en",
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := range 8 {
		wg.Go(func() {
			for i := range 20 {
				for q, structure := range queries {
					status, body, err := post(http.DefaultClient, url+"/v1/query", fmt.Sprintf(`{"query": %q, "k": %d}`, q, 1+(w+i)%5))
					if err != nil || status != 200 {
						errs <- fmt.Errorf("%s: status %d, err %v, body %s", q, status, err, body)
						return
					}
					var r struct{ Structure string }
					if err := json.Unmarshal([]byte(body), &r); err != nil || r.Structure != structure {
						errs <- fmt.Errorf("%s: structure %q, want %q (%v)", q, r.Structure, structure, err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// stubborn holds its engine slot until released, ignoring its context.
type stubborn struct {
	servetest.Engine
	started, release chan struct{}
}

func (s *stubborn) Answer(ctx context.Context, q string, k int) (*serve.Result, error) {
	s.started <- struct{}{}
	<-s.release
	return s.Engine.Answer(ctx, q, k)
}

// TestBusy: with the only engine slot held, a second request waits and fails
// with 503 when its time runs out.
func TestBusy(t *testing.T) {
	e := &stubborn{started: make(chan struct{}, 1), release: make(chan struct{})}
	h := serve.New(e, serve.Options{MaxInFlight: 1, QueryTimeout: 50 * time.Millisecond}).Handler()
	first := make(chan int, 1)
	go func() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/query", strings.NewReader(`{"query": "europe"}`)))
		first <- rec.Code
	}()
	<-e.started
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/query", strings.NewReader(`{"query": "europe"}`)))
	if rec.Code != 503 || !strings.Contains(rec.Body.String(), "busy") {
		t.Errorf("second request: status %d, body %s; want 503 busy", rec.Code, rec.Body)
	}
	close(e.release)
	if code := <-first; code != 200 {
		t.Errorf("first request: status %d, want 200 (its engine call finished)", code)
	}
}

// TestLog checks the request log line's fields.
func TestLog(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewJSONHandler(&lockedWriter{w: &buf, mu: &mu}, nil))
	h := serve.New(&servetest.Engine{}, serve.Options{Logger: logger}).Handler()
	for _, body := range []string{`{"query": "borders(france) & borders(germany)"}`, `{"query": "borders("}`} {
		req, _ := http.NewRequest("POST", "/v1/query", strings.NewReader(body))
		h.ServeHTTP(discard{}, req)
	}
	mu.Lock()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	mu.Unlock()
	if len(lines) != 2 {
		t.Fatalf("%d log lines, want 2:\n%s", len(lines), buf.String())
	}
	var ok, bad map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &ok); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(lines[1]), &bad); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"method", "path", "status", "duration", "structure", "k", "query"} {
		if _, has := ok[key]; !has {
			t.Errorf("log line lacks %q: %s", key, lines[0])
		}
	}
	if ok["structure"] != "2i(ep,ep)" || ok["status"] != float64(200) || ok["level"] != "INFO" {
		t.Errorf("ok line: %s", lines[0])
	}
	if bad["status"] != float64(400) || bad["level"] != "WARN" || bad["error"] == nil {
		t.Errorf("error line: %s", lines[1])
	}
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// discard is a ResponseWriter that drops everything.
type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) Write(b []byte) (int, error) { return len(b), nil }
func (discard) WriteHeader(int)             {}

// TestSlowClient: a client that never finishes its headers is cut off by the
// read-header timeout instead of holding a connection forever.
func TestSlowClient(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	url, done := start(t, ctx, serve.New(&servetest.Engine{}, serve.Options{ReadHeaderTimeout: 100 * time.Millisecond}))
	c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte("GET /healthz HTTP/1.1\r\nHost: x\r\n")); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	begin := time.Now()
	buf := make([]byte, 512)
	for {
		if _, err := c.Read(buf); err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatal("connection still open 5s after the header timeout")
			}
			break // closed by the server
		}
	}
	if d := time.Since(begin); d > 3*time.Second {
		t.Errorf("cut after %v, want about 100ms", d)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestAnswerBeforeLog: the client reads its answer while the request's log
// line is still being written (a log writer that blocks until then).
func TestAnswerBeforeLog(t *testing.T) {
	read := make(chan struct{})
	logger := slog.New(slog.NewJSONHandler(blockingWriter{read}, nil))
	srv := httptest.NewServer(serve.New(&servetest.Engine{}, serve.Options{Logger: logger}).Handler())
	defer srv.Close()
	defer close(read) // before Close, which waits for the handler
	done := make(chan error, 1)
	go func() {
		res, err := http.Post(srv.URL+"/v1/query", "application/json", strings.NewReader(`{"query": "europe"}`))
		if err == nil {
			_, err = io.ReadAll(res.Body)
			res.Body.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the answer waited for its log line")
	}
}

// blockingWriter blocks every write until its channel is closed.
type blockingWriter struct{ open chan struct{} }

func (b blockingWriter) Write(p []byte) (int, error) {
	<-b.open
	return len(p), nil
}
