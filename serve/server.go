package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// Options configures a Server. Zero fields take the defaults in brackets.
type Options struct {
	Logger *slog.Logger // request and lifecycle logs [discarded]

	MaxBodyBytes int64 // largest request body accepted [1 MiB]
	DefaultK     int   // answers per query when the request gives no k [10]
	MaxK         int   // largest k accepted [1000]
	MaxBatch     int   // most queries in one batch request [256]
	MaxComplete  int   // most autocompletion suggestions per request [50]

	// MaxInFlight bounds the engine calls running at once, so that a burst
	// of requests queues instead of thrashing the cores [4].
	MaxInFlight int
	// QueryTimeout bounds one request's time in the engine, queueing
	// included; past it the request fails with 503 [30s].
	QueryTimeout time.Duration
	// TrimAfter is the idle time after which the memory a burst of
	// requests left is returned to the OS [1s]; negative: never.
	TrimAfter time.Duration

	ReadHeaderTimeout time.Duration // [5s]
	ReadTimeout       time.Duration // whole request incl. body [15s]
	WriteTimeout      time.Duration // from end of headers to end of response [QueryTimeout+15s]
	IdleTimeout       time.Duration // keep-alive connections [2m]
	ShutdownTimeout   time.Duration // grace period for in-flight requests on shutdown [10s]
}

func (o Options) withDefaults() Options {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	defDur := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 1 << 20
	}
	def(&o.DefaultK, 10)
	def(&o.MaxK, 1000)
	def(&o.MaxBatch, 256)
	def(&o.MaxComplete, 50)
	def(&o.MaxInFlight, 4)
	defDur(&o.QueryTimeout, 30*time.Second)
	defDur(&o.ReadHeaderTimeout, 5*time.Second)
	defDur(&o.ReadTimeout, 15*time.Second)
	defDur(&o.WriteTimeout, o.QueryTimeout+15*time.Second)
	defDur(&o.IdleTimeout, 2*time.Minute)
	defDur(&o.ShutdownTimeout, 10*time.Second)
	if o.TrimAfter == 0 {
		o.TrimAfter = time.Second
	}
	if o.DefaultK > o.MaxK {
		o.DefaultK = o.MaxK
	}
	return o
}

// Server serves one Engine over HTTP.
type Server struct {
	engine  Engine
	opts    Options
	log     *slog.Logger
	slots   chan struct{} // engine call tokens, len = MaxInFlight
	trim    *trimmer
	handler http.Handler
}

// New returns a Server for engine. The engine must be safe for concurrent use.
func New(engine Engine, opts Options) *Server {
	opts = opts.withDefaults()
	s := &Server{
		engine: engine,
		opts:   opts,
		log:    opts.Logger,
		slots:  make(chan struct{}, opts.MaxInFlight),
		trim:   newTrimmer(opts.TrimAfter),
	}
	s.handler = s.routes()
	return s
}

// Handler returns the server's HTTP handler (API and web page), for tests
// and for embedding in another server.
func (s *Server) Handler() http.Handler { return s.handler }

// ListenAndServe listens on addr (host:port; port 0 picks a free one) and
// serves until ctx is cancelled, then shuts down gracefully.
func (s *Server) ListenAndServe(ctx context.Context, addr string) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	return s.Serve(ctx, ln)
}

// Serve serves on ln until ctx is cancelled. Then it stops accepting, waits
// up to ShutdownTimeout for in-flight requests and closes what remains. It
// returns nil after a clean shutdown, an error wrapping
// context.DeadlineExceeded when requests had to be cut, and the serving error
// when serving failed by itself. Serve closes ln.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: s.opts.ReadHeaderTimeout,
		ReadTimeout:       s.opts.ReadTimeout,
		WriteTimeout:      s.opts.WriteTimeout,
		IdleTimeout:       s.opts.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	s.log.Info("listening", slog.String("addr", ln.Addr().String()))

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()

	select {
	case err := <-errc:
		// Serve failed before any shutdown was asked for.
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}

	s.log.Info("shutting down", slog.Duration("grace", s.opts.ShutdownTimeout))
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.opts.ShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	if err != nil {
		// Grace period over: cut the remaining connections.
		s.log.Warn("forced shutdown", slog.String("error", err.Error()))
		srv.Close()
	}
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", serr)
	}
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	s.log.Info("stopped")
	return nil
}
