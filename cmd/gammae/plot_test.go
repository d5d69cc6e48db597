package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPlotCommand(t *testing.T) {
	run1 := filepath.Join(t.TempDir(), "run1")
	os.Mkdir(run1, 0o755)
	log := `{"step": 100, "loss": 1.0}
{"step": 200, "loss": 0.8}
{"step": 200, "valid_mrr": 0.1, "valid": {"1p": 0.2}}
`
	if err := os.WriteFile(filepath.Join(run1, "log.jsonl"), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	run2 := filepath.Join(t.TempDir(), "run2")
	os.Mkdir(run2, 0o755)
	log2 := `{"step": 1, "loss": 1.0, "cpu": 2.5, "time": 1.3}
{"step": 2, "loss": 0.9, "cpu": 5.0, "time": 2.6}
{"step": 2, "valid_mrr": 0.1}
`
	if err := os.WriteFile(filepath.Join(run2, "log.jsonl"), []byte(log2), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "x.png")
	cmpOut := filepath.Join(t.TempDir(), "cmp.svg")
	tests := []struct {
		args  []string
		code  int
		files []string
		msg   string
	}{
		{[]string{"plot", "--png", run1}, 0, []string{filepath.Join(run1, "curves.svg"), filepath.Join(run1, "curves.png")}, "wrote "},
		{[]string{"plot", "--out", out, run1}, 0, []string{out}, "wrote " + out},
		{[]string{"plot"}, 2, nil, "Usage: gammae plot"},
		{[]string{"plot", t.TempDir()}, 1, nil, "log.jsonl"},
		{[]string{"plot", "--out", "x.gif", run1}, 1, nil, "expected .svg or .png"},
		{[]string{"plot", "--x", "cpu", "--out", cmpOut, run2, run2}, 0, []string{cmpOut}, "wrote " + cmpOut},
		{[]string{"plot", "--x", "cpu", run1, run2}, 1, nil, `no "cpu" field`},
		{[]string{"plot", "--x", "hours", run2}, 1, nil, `--x "hours": want step, cpu or time`},
	}
	for _, tc := range tests {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), tc.args, &env{stdout: &stdout, stderr: &stderr})
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d; stderr %s", tc.args, code, tc.code, stderr.String())
		}
		if !strings.Contains(stdout.String()+stderr.String(), tc.msg) {
			t.Errorf("%v: output %q lacks %q", tc.args, stdout.String()+stderr.String(), tc.msg)
		}
		for _, f := range tc.files {
			if st, err := os.Stat(f); err != nil || st.Size() == 0 {
				t.Errorf("%v: %s not written: %v", tc.args, f, err)
			}
		}
	}
}
