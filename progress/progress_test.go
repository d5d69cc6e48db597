package progress

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// clock is a fake time source advanced by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }
func newClock() *clock                   { return &clock{time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)} }

func TestLogLines(t *testing.T) {
	c := newClock()
	var out bytes.Buffer
	r := New(Config{Out: &out, Label: "train", Unit: "iterations", RateUnit: "it", Total: 45000, Now: c.now})
	c.advance(5 * time.Second)
	r.Set(15, F("loss", 0.9)) // too early: nothing
	if out.Len() != 0 {
		t.Fatalf("early output %q", out.String())
	}
	c.advance(5 * time.Second)
	r.Set(31, F("loss", 0.7), F("lr", 1e-4)) // 10 s: a line
	c.advance(9 * time.Second)
	r.Add(29) // 19 s: within 10 s of the last line
	c.advance(1 * time.Second)
	r.Add(2, F("loss", 0.5123456)) // 20 s, 62 done: a line, lr kept
	c.advance(367*time.Second + 100*time.Millisecond)
	r.Set(1200)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	r.Set(45000) // after Close: ignored
	want := "" +
		"2026-11-21T10:00:10Z train: 31/45000 iterations (0.1%) 3.1 it/s, ETA 4h02m  loss=0.7 lr=0.0001\n" +
		"2026-11-21T10:00:20Z train: 62/45000 iterations (0.1%) 3.1 it/s, ETA 4h02m  loss=0.5123 lr=0.0001\n" +
		"2026-11-21T10:06:27Z train: 1200/45000 iterations (2.7%) 3.1 it/s, ETA 3h55m  loss=0.5123 lr=0.0001\n" +
		"2026-11-21T10:06:27Z train: 1200/45000 iterations (2.7%) 3.1 it/s, took 6m27s  loss=0.5123 lr=0.0001\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

func TestTerminal(t *testing.T) {
	c := newClock()
	var out bytes.Buffer
	r := New(Config{Out: &out, IsTerminal: true, Label: "eval", Unit: "queries", Now: c.now})
	for i := range 25 { // 2.5 s of updates every 100 ms... and some in between
		c.advance(50 * time.Millisecond)
		r.Add(10)
		if i == 20 {
			r.Logf("valid mrr=%.3f", 0.25)
		}
	}
	c.advance(50 * time.Millisecond)
	r.Add(1000, F("mrr", 0.3))
	r.Close()
	// Redraws every 100 ms, not every 50; the message blanks the line,
	// prints, redraws; Close redraws with the total time and ends the line.
	want := "\reval: 20 queries 200 queries/s\reval: 40 queries 200 queries/s" +
		"\reval: 60 queries 200 queries/s\reval: 80 queries 200 queries/s" +
		"\reval: 100 queries 200 queries/s\reval: 120 queries 200 queries/s" +
		"\reval: 140 queries 200 queries/s\reval: 160 queries 200 queries/s" +
		"\reval: 180 queries 200 queries/s\reval: 200 queries 200 queries/s" +
		"\r                               \rvalid mrr=0.250\n" +
		"\reval: 210 queries 200 queries/s\reval: 230 queries 200 queries/s" +
		"\reval: 250 queries 200 queries/s" +
		"\reval: 1250 queries 962 queries/s, took 1s  mrr=0.3\n"
	if out.String() != want {
		t.Errorf("got\n%q\nwant\n%q", out.String(), want)
	}
}

func TestAlsoUnit(t *testing.T) {
	c := newClock()
	var out bytes.Buffer
	r := New(Config{Out: &out, Label: "train", Unit: "iterations", RateUnit: "it", AlsoUnit: "queries", AlsoPer: 1536, Total: 100, Now: c.now})
	c.advance(2 * time.Second)
	r.Set(5)
	r.Close()
	if want := "train: 5/100 iterations (5.0%) 2.5 it/s (3840 queries/s), took 2s\n"; !strings.HasSuffix(out.String(), want) {
		t.Errorf("got %q, want a line ending %q", out.String(), want)
	}
}

func TestShorterLineIsPadded(t *testing.T) {
	c := newClock()
	var out bytes.Buffer
	r := New(Config{Out: &out, IsTerminal: true, Now: c.now})
	c.advance(time.Second)
	r.Set(1, Field{"note", "a long value"})
	c.advance(time.Second)
	r.Set(2, Field{"note", "x"})
	parts := strings.Split(out.String(), "\r")
	if len(parts) != 3 || len(parts[1]) != len(parts[2]) || !strings.HasSuffix(parts[2], "=x"+strings.Repeat(" ", 11)) {
		t.Errorf("redraws %q", parts)
	}
}

func TestUnknownTotalAndLogf(t *testing.T) {
	c := newClock()
	var out bytes.Buffer
	r := New(Config{Out: &out, Start: 100, LogEvery: time.Second, Now: c.now})
	c.advance(4 * time.Second)
	r.Set(101)
	r.Logf("checkpoint saved\n")
	c.advance(time.Hour)
	r.Close()
	want := "2026-11-21T10:00:04Z 101 items 0.25 items/s\n" +
		"2026-11-21T10:00:04Z checkpoint saved\n" +
		"2026-11-21T11:00:04Z 101 items 0.00 items/s, took 1h00m\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

func TestConcurrent(t *testing.T) {
	var out bytes.Buffer
	r := New(Config{Out: &out, Total: 8000, LogEvery: time.Nanosecond})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 1000 {
				r.Add(1, F("w", 1))
			}
		})
	}
	wg.Wait()
	r.Close()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if !strings.Contains(lines[len(lines)-1], " 8000/8000 items (100.0%)") {
		t.Errorf("final line %q", lines[len(lines)-1])
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteError(t *testing.T) {
	r := New(Config{Out: failWriter{}})
	if err := r.Close(); err == nil || err.Error() != "disk full" {
		t.Errorf("Close = %v", err)
	}
}

func TestDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{1499 * time.Millisecond, "1s"},
		{59 * time.Second, "59s"},
		{60 * time.Second, "1m00s"},
		{12*time.Minute + 30*time.Second, "12m30s"},
		{3*time.Hour + 55*time.Minute + 29*time.Second, "3h55m"},
		{3*time.Hour + 59*time.Minute + 30*time.Second, "4h00m"},
		{51*time.Hour + 10*time.Minute, "51h10m"},
	}
	for _, tc := range tests {
		if got := Duration(tc.d); got != tc.want {
			t.Errorf("Duration(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestF(t *testing.T) {
	tests := []struct {
		f    Field
		want string
	}{
		{F("loss", 0.512), "0.512"},
		{F("loss", 0.51234), "0.5123"},
		{F("lr", float32(1e-4)), "0.0001"},
		{F("step", 3000), "3000"},
		{F("mode", "dnf"), "dnf"},
	}
	for _, tc := range tests {
		if tc.f.Value != tc.want {
			t.Errorf("%s = %q, want %q", tc.f.Key, tc.f.Value, tc.want)
		}
	}
}

func TestIsTerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "x")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) {
		t.Error("regular file is a terminal")
	}
	if tty, err := os.Open("/dev/null"); err == nil { // a character device, though no tty
		defer tty.Close()
		if !IsTerminal(tty) {
			t.Error("/dev/null is not a character device")
		}
	}
}

// TestSetTotal: a new total shows in the next line; the rate keeps its clock.
func TestSetTotal(t *testing.T) {
	c := newClock()
	var out bytes.Buffer
	r := New(Config{Out: &out, Label: "train", Unit: "iterations", RateUnit: "it", Total: 100, Now: c.now})
	c.advance(10 * time.Second)
	r.Set(10)
	r.SetTotal(50)
	c.advance(10 * time.Second)
	r.Set(20)
	want := "" +
		"2026-11-21T10:00:10Z train: 10/100 iterations (10.0%) 1.0 it/s, ETA 1m30s\n" +
		"2026-11-21T10:00:20Z train: 20/50 iterations (40.0%) 1.0 it/s, ETA 30s\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}
