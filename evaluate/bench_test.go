package evaluate

import (
	"context"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/gammae/gammae/dataset"
	"github.com/gammae/gammae/gamma"
)

// BenchmarkEval times a full evaluation of a real query set with a random
// model of the reference size (d = 800, h = 1600, L = 4). The data comes
// from $GAMMAE_EVAL_DATA (a .gqd file or a benchmark directory, e.g.
// ../shared/data/NELL-betae); $GAMMAE_EVAL_DIM and $GAMMAE_EVAL_PER
// (queries per structure, 0 = all) change the size, $GAMMAE_EVAL_PRECISION
// (fp32, bf16) the scoring products:
//
//	GAMMAE_EVAL_DATA=fb237.gqd GOEXPERIMENT=simd go test -run - -bench Eval -benchtime 1x ./evaluate
func BenchmarkEval(b *testing.B) {
	path := os.Getenv("GAMMAE_EVAL_DATA")
	if path == "" {
		b.Skip("set GAMMAE_EVAL_DATA to a dataset with test queries")
	}
	d, _, err := dataset.Open(context.Background(), path, dataset.SourceAuto, dataset.ImportOptions{})
	if err != nil {
		b.Fatal(err)
	}
	cfg := gamma.DefaultConfig(d.KG.Entities.Len(), d.KG.Relations.Len())
	if s := os.Getenv("GAMMAE_EVAL_DIM"); s != "" {
		cfg.Dim, _ = strconv.Atoi(s)
		cfg.Hidden = 2 * cfg.Dim
	}
	per, _ := strconv.Atoi(os.Getenv("GAMMAE_EVAL_PER"))
	m, err := gamma.New[float32](cfg, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	if err := m.SetPrecision(gamma.Precision(os.Getenv("GAMMAE_EVAL_PRECISION"))); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		block, _ := strconv.Atoi(os.Getenv("GAMMAE_EVAL_BLOCK"))
		r, err := Run(context.Background(), m, &d.Test, Options{PerStructure: per, Uncertainty: true, Block: block})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(r.Queries)/r.Seconds, "queries/s")
		b.ReportMetric(float64(r.Queries), "queries")
		b.ReportMetric(r.Seconds, "s/eval")
	}
}
