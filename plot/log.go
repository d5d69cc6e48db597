// Package plot draws a run's training curves from its JSON-lines metrics
// log as a hand-written SVG (and a text-free PNG), with no dependencies.
package plot

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
)

// Series is one numeric field of the log against the step.
type Series struct {
	Name string // field name; nested objects joined with dots, e.g. valid.1p
	X, Y []float64
}

// Log holds every numeric field of a metrics log as a series over "step".
type Log struct {
	Series []*Series // in order of first appearance
	Lines  int       // records read
}

// Get returns the named series, or nil.
func (l *Log) Get(name string) *Series {
	for _, s := range l.Series {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// ReadLogFile reads a metrics log; errors name the file and line.
func ReadLogFile(path string) (*Log, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	l, err := ReadLog(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// ReadLog reads JSON lines, one object per line. It is liberal: every
// numeric field (nested objects flattened with dots) becomes a series over
// the record's "step"; records without a numeric step, blank lines, and
// strings, booleans and arrays are skipped. A malformed line is an error,
// except a last line without its newline, which a writer may still be
// appending, and which is ignored.
func ReadLog(r io.Reader) (*Log, error) {
	l := &Log{}
	index := map[string]*Series{}
	br := bufio.NewReader(r)
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		complete := err == nil
		if t := bytes.TrimSpace(line); len(t) > 0 {
			fields, perr := parseRecord(t)
			if perr != nil {
				if !complete {
					break // a partial final record
				}
				return nil, fmt.Errorf("line %d: %v", lineNo, perr)
			}
			l.add(fields, index)
		}
		if !complete {
			break
		}
	}
	return l, nil
}

type field struct {
	name  string
	value float64
}

func (l *Log) add(fields []field, index map[string]*Series) {
	step := math.NaN()
	for _, f := range fields {
		if f.name == "step" {
			step = f.value
		}
	}
	if math.IsNaN(step) {
		return
	}
	l.Lines++
	for _, f := range fields {
		if f.name == "step" {
			continue
		}
		s := index[f.name]
		if s == nil {
			s = &Series{Name: f.name}
			index[f.name] = s
			l.Series = append(l.Series, s)
		}
		s.X = append(s.X, step)
		s.Y = append(s.Y, f.value)
	}
}

// parseRecord flattens one JSON object into its numeric leaves, in the
// order they are written.
func parseRecord(b []byte) ([]field, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("expected a JSON object, found %v", tok)
	}
	var out []field
	if err := flatten(dec, "", &out); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value on the line")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("unexpected data after the JSON object")
	}
	return out, nil
}

// flatten reads the members of an object whose '{' was consumed.
func flatten(dec *json.Decoder, prefix string, out *[]field) error {
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		name := prefix + tok.(string)
		tok, err = dec.Token()
		if err != nil {
			return err
		}
		switch v := tok.(type) {
		case json.Number:
			if f, err := v.Float64(); err == nil {
				*out = append(*out, field{name, f})
			}
		case json.Delim:
			switch v {
			case '{':
				if err := flatten(dec, name+".", out); err != nil {
					return err
				}
			case '[':
				if err := skipArray(dec); err != nil {
					return err
				}
			}
		}
	}
	_, err := dec.Token() // the closing '}'
	return err
}

// skipArray consumes an array whose '[' was consumed.
func skipArray(dec *json.Decoder) error {
	depth := 1
	for depth > 0 {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '[' || d == '{' {
				depth++
			} else {
				depth--
			}
		}
	}
	return nil
}

// Along returns the log with every series drawn against the field axis
// ("cpu" or "time": the training records' CPU or wall seconds) instead of
// the step: a series' point at step s takes axis's value at s,
// interpolated between the training records around it; points outside
// them are dropped. Runs of different speeds compare at equal cost this
// way.
func (l *Log) Along(axis string) (*Log, error) {
	ax := l.Get(axis)
	if ax == nil || len(ax.X) == 0 {
		return nil, fmt.Errorf("the log has no %q field to draw along", axis)
	}
	out := &Log{Lines: l.Lines}
	for _, s := range l.Series {
		if s == ax {
			continue
		}
		r := &Series{Name: s.Name}
		for i, x := range s.X {
			if v, ok := interpolate(ax.X, ax.Y, x); ok {
				r.X, r.Y = append(r.X, v), append(r.Y, s.Y[i])
			}
		}
		out.Series = append(out.Series, r)
	}
	return out, nil
}

// interpolate returns y at x on the polyline through (xs, ys), xs
// ascending.
func interpolate(xs, ys []float64, x float64) (float64, bool) {
	i, found := slices.BinarySearch(xs, x)
	switch {
	case found:
		return ys[i], true
	case i == 0 || i == len(xs):
		return 0, false
	}
	f := (x - xs[i-1]) / (xs[i] - xs[i-1])
	return ys[i-1] + f*(ys[i]-ys[i-1]), true
}
