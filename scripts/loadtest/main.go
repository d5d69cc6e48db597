// Command loadtest measures the latency of a running `gammae serve` at a few
// concurrency levels and prints a table of percentiles:
//
//	go run ./scripts/loadtest -url http://127.0.0.1:8080 -query 'QUERY' -c 1,8 -n 2000 -duration 20s
//
// or with -queries FILE, a list of queries sent in turn (a mix of shapes
// and anchors, rather than one query over and over).
//
// It only ever talks to loopback addresses (127.0.0.0/8, ::1, localhost) and
// refuses any other target. Every level is bounded by -n requests and by
// -duration, whichever ends first.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Hard bounds, whatever the flags say.
const (
	maxRequests    = 1_000_000
	maxDuration    = 10 * time.Minute
	maxConcurrency = 256
)

type config struct {
	base     *url.URL
	queries  []string // sent in turn
	next     atomic.Uint64
	k        int
	batch    int // >0: send /v1/batch requests of this many copies of the query
	levels   []int
	n        int
	duration time.Duration
	warmup   int
	timeout  time.Duration
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	rawURL := fs.String("url", "http://127.0.0.1:8080", "base URL of the server (loopback only)")
	query := fs.String("query", "", "query text to send (this or -queries is required)")
	queriesFile := fs.String("queries", "", "`FILE` of queries, one per line (blank lines and # comments skipped), sent in turn")
	k := fs.Int("k", 10, "answers per query")
	batch := fs.Int("batch", 0, "if > 0, POST /v1/batch with this many copies of the query per request")
	levels := fs.String("c", "1,8", "comma-separated concurrency levels")
	n := fs.Int("n", 2000, "most requests per level")
	duration := fs.Duration("duration", 20*time.Second, "longest time per level")
	warmup := fs.Int("warmup", 20, "requests sent before measuring")
	timeout := fs.Duration("timeout", 30*time.Second, "timeout of one request")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: go run ./scripts/loadtest -query QUERY | -queries FILE [flags]

Measures the latency of a running 'gammae serve' (loopback addresses only)
at each concurrency level of -c and prints p50/p90/p99/max per level. Each
level is bounded by -n requests and by -duration, whichever ends first.

Example:
  go run ./scripts/loadtest -url http://127.0.0.1:8080 -query '?y : causes(virus, ?y)' -c 1,8

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	queries := []string{*query}
	if *queriesFile != "" {
		if *query != "" {
			return errors.New("give -query or -queries, not both")
		}
		qs, err := readQueries(*queriesFile)
		if err != nil {
			return err
		}
		queries = qs
	}
	cfg, err := newConfig(*rawURL, queries, *k, *batch, *levels, *n, *duration, *warmup, *timeout)
	if err != nil {
		return err
	}
	client := newClient(cfg.timeout)

	// One request first, so that a wrong query fails loudly instead of
	// filling the table with errors.
	if _, err := send(ctx, client, cfg); err != nil {
		return fmt.Errorf("first request: %w", err)
	}
	for range cfg.warmup {
		if _, err := send(ctx, client, cfg); err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
	}

	fmt.Fprintf(out, "target %s, k=%d", endpoint(cfg), cfg.k)
	if cfg.batch > 0 {
		fmt.Fprintf(out, ", %d queries per request", cfg.batch)
	}
	fmt.Fprintf(out, ", at most %d requests or %v per level\n", cfg.n, cfg.duration)
	// Fixed widths, so that each row can be printed as soon as it is measured.
	const row = "%11v %9v %7v %9v %9v %9v %9v %9v\n"
	fmt.Fprintf(out, row, "concurrency", "requests", "errors", "req/s", "p50 ms", "p90 ms", "p99 ms", "max ms")
	for _, c := range cfg.levels {
		if ctx.Err() != nil {
			break
		}
		st := runLevel(ctx, client, cfg, c)
		fmt.Fprintf(out, row, c, st.requests, st.errors, fmt.Sprintf("%.1f", float64(st.requests)/st.elapsed.Seconds()),
			ms(st.p50), ms(st.p90), ms(st.p99), ms(st.max))
		if st.firstErr != nil {
			fmt.Fprintf(out, "  first error at concurrency %d: %v\n", c, st.firstErr)
		}
	}
	return ctx.Err()
}

// readQueries reads a file of queries, one per line.
func readQueries(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("-queries: %w", err)
	}
	var qs []string
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			qs = append(qs, line)
		}
	}
	if len(qs) == 0 {
		return nil, fmt.Errorf("-queries %s: no queries in the file", path)
	}
	return qs, nil
}

func newConfig(rawURL string, queries []string, k, batch int, levels string, n int, duration time.Duration, warmup int, timeout time.Duration) (*config, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("-url %q: %w", rawURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("-url %q: expected an http:// or https:// URL", rawURL)
	}
	if err := checkLoopback(u.Hostname()); err != nil {
		return nil, fmt.Errorf("-url %q: %w", rawURL, err)
	}
	if len(queries) == 0 || strings.TrimSpace(queries[0]) == "" {
		return nil, errors.New("-query (or -queries) is required: the query text to send")
	}
	cfg := &config{base: u, queries: queries, k: k, batch: batch, n: n, duration: duration, warmup: warmup, timeout: timeout}
	for _, f := range strings.Split(levels, ",") {
		c, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || c < 1 || c > maxConcurrency {
			return nil, fmt.Errorf("-c %q: %q is not a concurrency level in 1..%d", levels, f, maxConcurrency)
		}
		cfg.levels = append(cfg.levels, c)
	}
	switch {
	case n < 1 || n > maxRequests:
		return nil, fmt.Errorf("-n %d: expected 1..%d", n, maxRequests)
	case duration <= 0 || duration > maxDuration:
		return nil, fmt.Errorf("-duration %v: expected more than 0 and at most %v", duration, maxDuration)
	case warmup < 0 || warmup > 1000:
		return nil, fmt.Errorf("-warmup %d: expected 0..1000", warmup)
	case batch < 0 || batch > 1000:
		return nil, fmt.Errorf("-batch %d: expected 0..1000", batch)
	case timeout <= 0:
		return nil, fmt.Errorf("-timeout %v: expected a positive duration", timeout)
	}
	return cfg, nil
}

// checkLoopback accepts only loopback hosts: a loopback IP, or a name whose
// every address is loopback.
func checkLoopback(host string) error {
	if host == "" {
		return errors.New("no host")
	}
	if ip := net.ParseIP(host); ip != nil {
		if !ip.IsLoopback() {
			return fmt.Errorf("refusing non-loopback address %s: load tests only target this machine (127.0.0.1, ::1, localhost)", host)
		}
		return nil
	}
	if host != "localhost" && !strings.HasSuffix(host, ".localhost") {
		return fmt.Errorf("refusing host %q: load tests only target this machine (127.0.0.1, ::1, localhost)", host)
	}
	addrs, err := net.LookupIP(host)
	if err != nil {
		return fmt.Errorf("resolve %s: %w", host, err)
	}
	for _, a := range addrs {
		if !a.IsLoopback() {
			return fmt.Errorf("refusing %s: it resolves to the non-loopback address %s", host, a)
		}
	}
	return nil
}

// newClient returns a client that can only connect to loopback addresses
// and never follows redirects.
func newClient(timeout time.Duration) *http.Client {
	dialer := &net.Dialer{
		Timeout: 5 * time.Second,
		Control: func(network, address string, _ syscall.RawConn) error {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				return err
			}
			if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
				return fmt.Errorf("refusing to connect to non-loopback %s", address)
			}
			return nil
		},
	}
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			DialContext:         dialer.DialContext,
			MaxIdleConns:        maxConcurrency,
			MaxIdleConnsPerHost: maxConcurrency,
			IdleConnTimeout:     30 * time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return errors.New("not following redirects")
		},
	}
}

// pick returns the next query in turn.
func (cfg *config) pick() string {
	return cfg.queries[(cfg.next.Add(1)-1)%uint64(len(cfg.queries))]
}

func endpoint(cfg *config) string {
	path := "/v1/query"
	if cfg.batch > 0 {
		path = "/v1/batch"
	}
	return cfg.base.JoinPath(path).String()
}

func body(cfg *config) []byte {
	var v any
	if cfg.batch > 0 {
		qs := make([]string, cfg.batch)
		for i := range qs {
			qs[i] = cfg.pick()
		}
		v = map[string]any{"queries": qs, "k": cfg.k}
	} else {
		v = map[string]any{"query": cfg.pick(), "k": cfg.k}
	}
	b, _ := json.Marshal(v) // strings and ints always encode
	return b
}

// send makes one request and returns its latency; a non-200 status is an
// error carrying the server's message.
func send(ctx context.Context, client *http.Client, cfg *config) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint(cfg), bytes.NewReader(body(cfg)))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	resp.Body.Close()
	took := time.Since(start)
	if err != nil {
		return took, err
	}
	if resp.StatusCode != http.StatusOK {
		return took, fmt.Errorf("status %d: %s", resp.StatusCode, bytes.TrimSpace(b))
	}
	return took, nil
}

type stats struct {
	requests, errors   int
	elapsed            time.Duration
	p50, p90, p99, max time.Duration
	firstErr           error
}

// runLevel keeps c requests in flight until cfg.n have been sent or
// cfg.duration has passed.
func runLevel(ctx context.Context, client *http.Client, cfg *config, c int) stats {
	ctx, cancel := context.WithTimeout(ctx, cfg.duration)
	defer cancel()
	var (
		issued   atomic.Int64
		mu       sync.Mutex
		lat      []time.Duration
		errCount int
		firstErr error
		wg       sync.WaitGroup
	)
	start := time.Now()
	for range c {
		wg.Go(func() {
			var mine []time.Duration
			var bad int
			var err1 error
			for ctx.Err() == nil && issued.Add(1) <= int64(cfg.n) {
				d, err := send(ctx, client, cfg)
				if err != nil {
					if ctx.Err() != nil {
						break // cut by the level's time limit: not a server error
					}
					bad++
					if err1 == nil {
						err1 = err
					}
					continue
				}
				mine = append(mine, d)
			}
			mu.Lock()
			lat = append(lat, mine...)
			errCount += bad
			if firstErr == nil {
				firstErr = err1
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.Sort(lat)
	return stats{
		requests: len(lat) + errCount,
		errors:   errCount,
		elapsed:  time.Since(start),
		p50:      percentile(lat, 0.50),
		p90:      percentile(lat, 0.90),
		p99:      percentile(lat, 0.99),
		max:      percentile(lat, 1),
		firstErr: firstErr,
	}
}

// percentile returns the p-quantile of sorted latencies by the nearest-rank
// method: the smallest value with at least p of the values at or below it.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(p*float64(len(sorted)) + 0.999999999)
	rank = max(1, min(rank, len(sorted)))
	return sorted[rank-1]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d.Microseconds())/1000) }
