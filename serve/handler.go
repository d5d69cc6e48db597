package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"
	"time"
)

// handlerFunc is an HTTP handler that returns its error instead of writing
// it, so that every error is reported and logged in one place.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// recorder remembers the status written, so that the log line has it and the
// adapter knows whether an error can still be written.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (rw *recorder) WriteHeader(status int) {
	if rw.status == 0 {
		rw.status = status
	}
	rw.ResponseWriter.WriteHeader(status)
}

func (rw *recorder) Write(b []byte) (int, error) {
	if rw.status == 0 {
		rw.status = http.StatusOK
	}
	n, err := rw.ResponseWriter.Write(b)
	rw.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (rw *recorder) Unwrap() http.ResponseWriter { return rw.ResponseWriter }

// logAttrs collects attributes that a handler adds to its request's log line
// (e.g. the query structure).
type logAttrs struct{ attrs []slog.Attr }

type logAttrsKey struct{}

// annotate adds attributes to the request's log line.
func annotate(ctx context.Context, attrs ...slog.Attr) {
	if la, ok := ctx.Value(logAttrsKey{}).(*logAttrs); ok {
		la.attrs = append(la.attrs, attrs...)
	}
}

// handle adapts h to http.Handler: it allows only the given methods (HEAD
// comes with GET), recovers panics, writes returned errors as JSON and logs
// one line per request.
func (s *Server) handle(h handlerFunc, methods ...string) http.Handler {
	if slices.Contains(methods, http.MethodGet) {
		methods = append(methods, http.MethodHead)
	}
	allow := strings.Join(methods, ", ")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		la := &logAttrs{}
		r = r.WithContext(context.WithValue(r.Context(), logAttrsKey{}, la))
		rw := &recorder{ResponseWriter: w}

		err := func() (err error) {
			defer func() {
				if p := recover(); p != nil {
					err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
				}
			}()
			if !slices.Contains(methods, r.Method) {
				w.Header().Set("Allow", allow)
				return errorf(http.StatusMethodNotAllowed, "method %s not allowed on %s; use %s", r.Method, r.URL.Path, allow)
			}
			return h(rw, r)
		}()

		level := slog.LevelInfo
		var he *Error
		if err != nil {
			he = classify(err)
			if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
				// The client went away; nobody reads the answer.
				he = &Error{Status: 499, Message: "client closed request", Err: err}
			} else if rw.status == 0 {
				if werr := writeJSON(rw, he.Status, errorResponse{Error: he.body()}); werr != nil {
					la.attrs = append(la.attrs, slog.String("write_error", werr.Error()))
				}
			}
			if he.Status >= 500 {
				level = slog.LevelError
			} else {
				level = slog.LevelWarn
			}
		}
		// The answer goes out before the log line is written: the client
		// need not wait for the log.
		_ = http.NewResponseController(w).Flush()
		status := rw.status
		if status == 0 {
			status = he.statusOr(http.StatusOK)
		}
		attrs := []slog.Attr{
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.Int("status", status),
			slog.Duration("duration", time.Since(start)),
			slog.Int64("bytes", rw.bytes),
			slog.String("remote", r.RemoteAddr),
		}
		attrs = append(attrs, la.attrs...)
		if err != nil {
			attrs = append(attrs, slog.String("error", err.Error()))
		}
		s.log.LogAttrs(r.Context(), level, "request", attrs...)
	})
}

// statusOr returns e's status, or def when e is nil.
func (e *Error) statusOr(def int) int {
	if e == nil {
		return def
	}
	return e.Status
}
