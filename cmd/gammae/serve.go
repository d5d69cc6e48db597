package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/gammae/gammae/serve"
)

func init() {
	register(&command{
		Name:    "serve",
		Args:    "",
		Summary: "Serve a trained model over HTTP: a JSON API (/v1/query, /v1/batch, /v1/entities, /v1/info) and a web page to try queries.",
		Examples: `  gammae serve --model runs/fb237 --names ../shared/data/FB15k-237-names
  # then open http://127.0.0.1:8080/ or:
  curl -s localhost:8080/v1/query -d '{"query": "p(\"Steven Spielberg\", director/film)", "k": 5}'
  gammae serve --model runs/nell/best.safetensors --data nell.gqd --addr 127.0.0.1:9000`,
		Setup: func(fs *flag.FlagSet) func(ctx context.Context, e *env, args []string) error {
			var mf modelFlags
			mf.define(fs)
			addr := fs.String("addr", "127.0.0.1:8080", "`host:port` to listen on (port 0 picks a free one)")
			logFormat := fs.String("log", "auto", "log format on stderr: json, text, or auto (text on a terminal, else json)")
			pprofAddr := fs.String("pprof", "", "also serve Go's profiler (net/http/pprof) on this loopback `host:port`, apart from the API")
			inflight := fs.Int("max-inflight", 64, "most queries handed to the model at once; concurrent ones are answered in shared batches")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) != 0 {
					return errUsage
				}
				log, err := newLogger(e.stderr, *logFormat)
				if err != nil {
					return err
				}
				if *inflight < 1 {
					return fmt.Errorf("--max-inflight %d: expected at least 1", *inflight)
				}
				start := time.Now()
				eng, lm, err := mf.load(ctx, e.stderr)
				if err != nil {
					return err
				}
				info := eng.Info()
				attrs := []any{
					slog.String("model", lm.file), slog.String("dataset", lm.dataset),
					slog.Int("entities", info.Entities), slog.Int("relations", info.Relations),
					slog.Int("dim", info.Dim), slog.Int64("trained_steps", info.TrainedSteps),
					slog.Float64("load_seconds", time.Since(start).Seconds()),
				}
				if lm.labels != "" {
					attrs = append(attrs, slog.String("names", lm.labels))
				}
				log.Info("model loaded", attrs...)
				start = time.Now()
				if err := eng.Warm(ctx); err != nil {
					return fmt.Errorf("warm-up queries: %w", err)
				}
				// Loading leaves hundreds of MB of garbage (the dataset's
				// decoding) that an idle server never collects: return it
				// now, so that the idle footprint is the live one.
				debug.FreeOSMemory()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				log.Info("warmed up", slog.Float64("seconds", time.Since(start).Seconds()), slog.Uint64("heap_mb", ms.HeapAlloc>>20))

				if *pprofAddr != "" {
					stop, err := servePprof(ctx, *pprofAddr)
					if err != nil {
						return err
					}
					defer stop()
					log.Info("profiler", slog.String("url", "http://"+*pprofAddr+"/debug/pprof/"))
				}
				var lc net.ListenConfig
				ln, err := lc.Listen(ctx, "tcp", *addr)
				if err != nil {
					return fmt.Errorf("listen on %s: %w", *addr, err)
				}
				srv := serve.New(eng, serve.Options{Logger: log, MaxInFlight: *inflight})
				fmt.Fprintf(e.stdout, "gammae serve: listening on http://%s/ (Ctrl-C to stop)\n", ln.Addr())
				return srv.Serve(ctx, ln)
			}
		},
	})
}

// servePprof serves net/http/pprof's handlers on addr, which must be a
// loopback address: profiles expose internals and cost CPU.
func servePprof(ctx context.Context, addr string) (stop func(), err error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--pprof %q: %v", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("--pprof %q: expected a loopback address such as 127.0.0.1:6060", addr)
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--pprof: listen on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	// No write timeout: a CPU profile streams for its whole duration.
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	return func() { srv.Close() }, nil
}

// newLogger returns a slog logger writing to w in the given format.
func newLogger(w io.Writer, format string) (*slog.Logger, error) {
	switch format {
	case "auto":
		if isTerminal(w) {
			return slog.New(slog.NewTextHandler(w, nil)), nil
		}
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	case "text":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	}
	return nil, fmt.Errorf("--log %q: expected json, text or auto", format)
}
