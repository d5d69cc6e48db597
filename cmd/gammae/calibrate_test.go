package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gammae/gammae/checkpoint"
	"github.com/gammae/gammae/evaluate"
	"github.com/gammae/gammae/sample"
)

// tinyValid writes, beside run, a dataset of tinyRun's graph with 1p and
// 2p validation queries, and returns its path.
func tinyValid(t *testing.T, run string) string {
	return tinyQuerySet(t, run, "valid.gqd", func(o *sample.Options, specs []sample.Spec) { o.Valid = specs })
}

// estimated runs query --json and returns its estimated answer count.
func estimated(t *testing.T, run string) float64 {
	t.Helper()
	code, out, stderr := runIn(t, "", "query", "--model", run, "--json", "p(bob, knows)")
	if code != 0 {
		t.Fatalf("query: exit %d\n%s%s", code, out, stderr)
	}
	var r struct {
		EstimatedAnswers *float64 `json:"estimated_answers"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.EstimatedAnswers == nil {
		t.Fatalf("query --json: %v, no estimated_answers:\n%s", err, out)
	}
	return *r.EstimatedAnswers
}

// evalShift runs eval --estimates on the validation queries and returns
// the report's estimates.
func evalShift(t *testing.T, run, data string, extra ...string) (*evaluate.Estimates, string) {
	t.Helper()
	js := filepath.Join(t.TempDir(), "e.json")
	args := append([]string{"eval", "--model", run, "--data", data, "--split", "valid", "--estimates", "--quiet", "--json", js}, extra...)
	code, out, stderr := runIn(t, "", args...)
	if code != 0 {
		t.Fatalf("eval: exit %d\n%s%s", code, out, stderr)
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var r evaluate.Report
	if err := json.Unmarshal(b, &r); err != nil || r.Estimates == nil {
		t.Fatalf("eval --json: %v\n%s", err, b)
	}
	return r.Estimates, stderr
}

// TestCalibrate: the fitted shift is stored with the model it fits, used
// by query and eval, set aside by eval --uncalibrated, and ignored (with
// a note from eval and query) once the run's model is no longer the one
// it was fitted on.
func TestCalibrate(t *testing.T) {
	run := tinyRun(t)
	data := tinyValid(t, run)
	raw := estimated(t, run)

	code, out, stderr := runIn(t, "", "calibrate", "--model", run, "--data", data)
	if code != 0 || !strings.Contains(out, "logit shift") {
		t.Fatalf("calibrate: exit %d\n%s%s", code, out, stderr)
	}
	c, err := checkpoint.ReadCalibration(run)
	if err != nil || c == nil {
		t.Fatalf("calibration %+v, %v", c, err)
	}
	if c.Model != checkpoint.ModelFile || c.Iteration != 42 || c.Split != "valid" || c.Queries == 0 || c.Default == 0 {
		t.Errorf("calibration %+v", c)
	}
	// The fit is the pooled median of the queries' own shifts, which the
	// uncalibrated evaluation reports.
	e, _ := evalShift(t, run, data, "--uncalibrated")
	if e.Calibration.Default != 0 || math.Abs(float64(e.All.Shift)-c.Default) > 1e-9 || math.Abs(float64(e.All.Ratio)-c.RatioBefore) > 1e-9 {
		t.Errorf("uncalibrated: shift %v, fit %v ratio %v; calibration %+v", e.Calibration.Default, e.All.Shift, e.All.Ratio, c)
	}
	e, _ = evalShift(t, run, data)
	if e.Calibration.Default != c.Default || math.Abs(float64(e.All.Ratio)-c.RatioAfter) > 1e-9 || math.Abs(float64(e.All.Shift)) > 1e-3 {
		t.Errorf("calibrated: shift %v, fit %v ratio %v; calibration %+v", e.Calibration.Default, e.All.Shift, e.All.Ratio, c)
	}
	// query uses it: the estimate moves the way the shift does.
	if got := estimated(t, run); got == raw || (got < raw) != (c.Default < 0) {
		t.Errorf("query estimate %v, uncalibrated %v, shift %v", got, raw, c.Default)
	}

	// A calibration of another iteration is not used, and eval says so.
	c.Iteration = 41
	if err := checkpoint.WriteCalibration(run, c); err != nil {
		t.Fatal(err)
	}
	if e, stderr := evalShift(t, run, data); e.Calibration.Default != 0 || !strings.Contains(stderr, "estimates uncalibrated") {
		t.Errorf("outdated calibration: shift %v\n%s", e.Calibration.Default, stderr)
	}
	if got := estimated(t, run); got != raw {
		t.Errorf("outdated calibration: query estimate %v, want the uncalibrated %v", got, raw)
	}
	if _, _, stderr := runIn(t, "", "query", "--model", run, "p(bob, knows)"); !strings.Contains(stderr, "estimates uncalibrated") {
		t.Errorf("outdated calibration: query says nothing:\n%s", stderr)
	}
}

func TestCalibrateErrors(t *testing.T) {
	run := tinyRun(t)
	data := tinyValid(t, run)
	softmax := tinyRun(t)
	meta, err := checkpoint.ReadRunMeta(softmax)
	if err != nil {
		t.Fatal(err)
	}
	meta.Train = json.RawMessage(`{"loss":"softmax"}`)
	if err := checkpoint.WriteRunMeta(softmax, meta); err != nil {
		t.Fatal(err)
	}
	bare := filepath.Join(t.TempDir(), "m.safetensors")
	b, err := os.ReadFile(filepath.Join(run, checkpoint.ModelFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bare, b, 0o644); err != nil {
		t.Fatal(err)
	}
	broken := tinyRun(t)
	if err := os.WriteFile(filepath.Join(broken, checkpoint.CalibrationFile), []byte(`{"model": "model.safetensors", "logit_shift": "x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"softmax loss", []string{"--model", softmax, "--data", data}, "no single shift calibrates it"},
		{"bare model file", []string{"--model", bare, "--data", data}, "not in a run directory"},
		{"no validation queries", []string{"--model", run}, "has no valid queries"},
		{"broken calibration file", []string{"--model", broken, "--data", data}, checkpoint.CalibrationFile},
		{"no model", nil, "Usage:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, stderr := runIn(t, "", append([]string{"calibrate"}, c.args...)...)
			if code == 0 || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, want an error with %q\n%s%s", code, c.want, out, stderr)
			}
		})
	}
}
