// Package progress reports the advance of long work: count, rate, ETA and
// a few key=value fields, either as one redrawn terminal line or as
// periodic log lines.
package progress

import (
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Config sets up a Reporter. Only Out is required.
type Config struct {
	Out        io.Writer
	IsTerminal bool   // redraw one line with \r instead of printing log lines
	Label      string // what is running, e.g. "train"
	Unit       string // plural noun after the counts, default "items"
	RateUnit   string // per-second unit, e.g. "it"; default Unit
	Total      int64  // 0 when unknown: no percentage and no ETA
	// AlsoUnit, when set, adds the rate in a second unit, of which each
	// unit of work is AlsoPer: e.g. "queries", 1536 per training
	// iteration.
	AlsoUnit string
	AlsoPer  float64
	Start    int64 // count already done before this process (resumed runs); not in the rate

	// LogEvery is the least time between log lines (default 10 s); Redraw
	// the least time between terminal redraws (default 100 ms).
	LogEvery, Redraw time.Duration

	Now func() time.Time // clock, default time.Now; tests pass a fake
}

// Field is one key=value shown after the counts.
type Field struct {
	Key, Value string
}

// F formats a field: floats with 4 significant digits, the rest with %v.
func F(key string, value any) Field {
	switch v := value.(type) {
	case float64:
		return Field{key, strconv.FormatFloat(v, 'g', 4, 64)}
	case float32:
		return Field{key, strconv.FormatFloat(float64(v), 'g', 4, 32)}
	default:
		return Field{key, fmt.Sprint(v)}
	}
}

// Reporter tracks one piece of work. All methods are safe for concurrent
// use. Output happens only inside calls (there is no timer goroutine), so a
// Reporter that is not updated stays silent.
type Reporter struct {
	mu       sync.Mutex
	cfg      Config
	start    time.Time
	done     int64
	fields   []Field
	last     time.Time // last line written
	drawn    int       // width of the terminal line on screen, 0 if none
	closed   bool
	writeErr error
}

// New starts a Reporter; the clock starts now.
func New(cfg Config) *Reporter {
	if cfg.Unit == "" {
		cfg.Unit = "items"
	}
	if cfg.RateUnit == "" {
		cfg.RateUnit = cfg.Unit
	}
	if cfg.LogEvery <= 0 {
		cfg.LogEvery = 10 * time.Second
	}
	if cfg.Redraw <= 0 {
		cfg.Redraw = 100 * time.Millisecond
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	now := cfg.Now()
	return &Reporter{cfg: cfg, start: now, done: cfg.Start, last: now}
}

// IsTerminal reports whether f is a character device, for commands to fill
// Config.IsTerminal from os.Stderr.
func IsTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Set records the total count done so far and updates fields (a field keeps
// its last value until set again), then prints if a line is due.
func (r *Reporter) Set(done int64, fields ...Field) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done = done
	r.update(fields)
}

// SetTotal changes the expected total (a schedule refitted to a time
// budget) without restarting the clock or the line.
func (r *Reporter) SetTotal(total int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cfg.Total = total
}

// Add advances the count by n.
func (r *Reporter) Add(n int64, fields ...Field) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done += n
	r.update(fields)
}

func (r *Reporter) update(fields []Field) {
	r.setFields(fields)
	if r.closed {
		return
	}
	now := r.cfg.Now()
	every := r.cfg.LogEvery
	if r.cfg.IsTerminal {
		every = r.cfg.Redraw
	}
	if now.Sub(r.last) < every {
		return
	}
	r.last = now
	r.emit(now, false)
}

func (r *Reporter) setFields(fields []Field) {
next:
	for _, f := range fields {
		for i := range r.fields {
			if r.fields[i].Key == f.Key {
				r.fields[i].Value = f.Value
				continue next
			}
		}
		r.fields = append(r.fields, f)
	}
}

// Logf prints a message line without garbling the terminal line: the
// progress line is cleared, the message printed, and the line redrawn. In
// log mode the message gets a timestamp like progress lines.
func (r *Reporter) Logf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	msg := strings.TrimRight(fmt.Sprintf(format, args...), "\n")
	now := r.cfg.Now()
	if !r.cfg.IsTerminal {
		r.write(timestamp(now) + " " + msg + "\n")
		return
	}
	if r.drawn > 0 {
		r.write("\r" + strings.Repeat(" ", r.drawn) + "\r")
		r.drawn = 0
	}
	r.write(msg + "\n")
	if !r.closed {
		r.emit(now, false)
		r.last = now
	}
}

// Close prints the final line (with the total time instead of an ETA) and
// ends the terminal line. It returns the first write error, if any. Later
// updates are ignored.
func (r *Reporter) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return r.writeErr
	}
	r.closed = true
	r.emit(r.cfg.Now(), true)
	if r.cfg.IsTerminal {
		r.write("\n")
	}
	return r.writeErr
}

func (r *Reporter) emit(now time.Time, final bool) {
	line := r.line(now, final)
	if !r.cfg.IsTerminal {
		r.write(timestamp(now) + " " + line + "\n")
		return
	}
	pad := ""
	if w := len(line); w < r.drawn {
		pad = strings.Repeat(" ", r.drawn-w)
	}
	r.write("\r" + line + pad)
	r.drawn = len(line)
}

func (r *Reporter) write(s string) {
	if _, err := io.WriteString(r.cfg.Out, s); err != nil && r.writeErr == nil {
		r.writeErr = err
	}
}

func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// line formats e.g. "train: 1200/45000 iterations (2.7%) 3.1 it/s (4762
// queries/s), ETA 3h55m  loss=0.512".
func (r *Reporter) line(now time.Time, final bool) string {
	var b strings.Builder
	if r.cfg.Label != "" {
		b.WriteString(r.cfg.Label + ": ")
	}
	elapsed := now.Sub(r.start)
	rate := 0.0
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(r.done-r.cfg.Start) / s
	}
	if r.cfg.Total > 0 {
		fmt.Fprintf(&b, "%d/%d %s (%.1f%%)", r.done, r.cfg.Total, r.cfg.Unit, 100*float64(r.done)/float64(r.cfg.Total))
	} else {
		fmt.Fprintf(&b, "%d %s", r.done, r.cfg.Unit)
	}
	fmt.Fprintf(&b, " %s %s/s", formatRate(rate), r.cfg.RateUnit)
	if r.cfg.AlsoUnit != "" {
		fmt.Fprintf(&b, " (%s %s/s)", formatRate(rate*r.cfg.AlsoPer), r.cfg.AlsoUnit)
	}
	switch {
	case final:
		b.WriteString(", took " + Duration(elapsed))
	case r.cfg.Total > 0 && rate > 0 && r.done < r.cfg.Total:
		left := float64(r.cfg.Total-r.done) / rate
		b.WriteString(", ETA " + Duration(time.Duration(math.Min(left, 1e6*3600)*float64(time.Second))))
	}
	for i, f := range r.fields {
		if i == 0 {
			b.WriteString(" ")
		}
		b.WriteString(" " + f.Key + "=" + f.Value)
	}
	return b.String()
}

func formatRate(r float64) string {
	switch {
	case r >= 100:
		return strconv.FormatFloat(r, 'f', 0, 64)
	case r >= 1:
		return strconv.FormatFloat(r, 'f', 1, 64)
	default:
		return strconv.FormatFloat(r, 'f', 2, 64)
	}
}

// Duration formats d compactly and coarsely: "45s", "12m30s", "3h55m".
func Duration(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	default:
		m := (s + 30) / 60
		return fmt.Sprintf("%dh%02dm", m/60, m%60)
	}
}
