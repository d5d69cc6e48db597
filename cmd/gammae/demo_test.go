package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// The newcomer's main job runs end to end: embedded graph, sampling,
// training, evaluation table and three answered questions.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model")
	}
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"demo", "--minutes", "0.05", "--out", t.TempDir()}, &env{stdout: &out, stderr: &errb})
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	for _, want := range []string{"== 1. Graph: UMLS", "== 4. Filtered ranking", "MRR", "avg", "calibrated the estimated answer counts", "What can an antibiotic treat?", "observed", "gammae query --model"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("demo output lacks %q:\n%s", want, out.String())
		}
	}
	if n := strings.Count(out.String(), "rank  entity"); n != len(demoQuestions) {
		t.Errorf("%d answer tables, want %d", n, len(demoQuestions))
	}
}
