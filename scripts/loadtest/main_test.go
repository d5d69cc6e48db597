package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gammae/gammae/serve"
	"github.com/gammae/gammae/serve/servetest"
)

func TestCheckLoopback(t *testing.T) {
	for _, tt := range []struct {
		host string
		ok   bool
	}{
		{"127.0.0.1", true},
		{"127.8.9.10", true},
		{"::1", true},
		{"localhost", true},
		{"10.0.0.1", false},
		{"192.168.1.20", false},
		{"172.16.0.1", false},
		{"8.8.8.8", false},
		{"0.0.0.0", false},
		{"::", false},
		{"example.com", false},
		{"localhost.example.com", false},
		{"", false},
	} {
		err := checkLoopback(tt.host)
		if (err == nil) != tt.ok {
			t.Errorf("checkLoopback(%q) = %v, want ok=%v", tt.host, err, tt.ok)
		}
	}
}

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i))
	}
	for _, tt := range []struct {
		p    float64
		want time.Duration
	}{{0.5, 50}, {0.9, 90}, {0.99, 99}, {1, 100}, {0, 1}} {
		if got := percentile(d, tt.p); got != tt.want {
			t.Errorf("percentile(1..100, %v) = %v, want %v", tt.p, got, tt.want)
		}
	}
	if got := percentile([]time.Duration{7}, 0.99); got != 7 {
		t.Errorf("percentile of one = %v", got)
	}
	if got := percentile(nil, 0.5); got != 0 {
		t.Errorf("percentile of none = %v", got)
	}
}

func TestConfig(t *testing.T) {
	for _, tt := range []struct {
		name   string
		url    string
		query  string
		levels string
		n      int
		dur    time.Duration
		errSub string
	}{
		{"ok", "http://127.0.0.1:8080", "q", "1,8", 10, time.Second, ""},
		{"remote", "http://10.1.2.3:8080", "q", "1", 10, time.Second, "non-loopback"},
		{"scheme", "ftp://127.0.0.1", "q", "1", 10, time.Second, "http://"},
		{"no query", "http://127.0.0.1", " ", "1", 10, time.Second, "-query"},
		{"bad level", "http://127.0.0.1", "q", "1,x", 10, time.Second, "concurrency"},
		{"level too high", "http://127.0.0.1", "q", "1000", 10, time.Second, "concurrency"},
		{"n too high", "http://127.0.0.1", "q", "1", maxRequests + 1, time.Second, "-n"},
		{"too long", "http://127.0.0.1", "q", "1", 10, time.Hour, "-duration"},
	} {
		_, err := newConfig(tt.url, []string{tt.query}, 10, 0, tt.levels, tt.n, tt.dur, 0, time.Second)
		if (err == nil) != (tt.errSub == "") || (err != nil && !strings.Contains(err.Error(), tt.errSub)) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.errSub)
		}
	}
}

// TestRun drives a real server (loopback) briefly at two levels.
func TestRun(t *testing.T) {
	ts := httptest.NewServer(serve.New(&servetest.Engine{}, serve.Options{}).Handler())
	defer ts.Close()
	for _, extra := range [][]string{nil, {"-batch", "4"}} {
		var out bytes.Buffer
		args := append([]string{"-url", ts.URL, "-query", "borders(france)", "-c", "1,4", "-n", "40", "-duration", "5s", "-warmup", "2"}, extra...)
		if err := run(context.Background(), args, &out); err != nil {
			t.Fatalf("run %v: %v", extra, err)
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(lines) != 4 || !strings.Contains(lines[1], "p99 ms") {
			t.Fatalf("output:\n%s", out.String())
		}
		for _, l := range lines[2:] {
			f := strings.Fields(l)
			if len(f) != 8 || f[1] != "40" || f[2] != "0" {
				t.Errorf("row %q: want 40 requests, 0 errors", l)
			}
		}
	}
	// A bad query fails on the first request with the server's message.
	err := run(context.Background(), []string{"-url", ts.URL, "-query", "borders(", "-n", "5"}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "status 400") {
		t.Errorf("bad query: err = %v, want a 400 from the first request", err)
	}
}

// TestQueriesInTurn checks that -queries reads a file of queries and that
// requests (and batch requests) take them in turn.
func TestQueriesInTurn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q.txt")
	if err := os.WriteFile(path, []byte("# three queries\np(a, r)\n\n  p(b, r)  \np(c, r)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	qs, err := readQueries(path)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(qs, []string{"p(a, r)", "p(b, r)", "p(c, r)"}) {
		t.Fatalf("readQueries = %q", qs)
	}
	cfg, err := newConfig("http://127.0.0.1:1", qs, 10, 0, "1", 10, time.Second, 0, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for range 4 {
		var v struct{ Query string }
		if err := json.Unmarshal(body(cfg), &v); err != nil {
			t.Fatal(err)
		}
		got = append(got, v.Query)
	}
	if !slices.Equal(got, []string{"p(a, r)", "p(b, r)", "p(c, r)", "p(a, r)"}) {
		t.Errorf("queries sent %q", got)
	}
	cfg.batch = 2
	var v struct{ Queries []string }
	if err := json.Unmarshal(body(cfg), &v); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(v.Queries, []string{"p(b, r)", "p(c, r)"}) {
		t.Errorf("batch sent %q", v.Queries)
	}
	if _, err := readQueries(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("missing file: no error")
	}
}
