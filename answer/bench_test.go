package answer

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/gammae/gammae/dataset"
	"github.com/gammae/gammae/gamma"
	"github.com/gammae/gammae/query"
	"github.com/gammae/gammae/serve"
)

// fbEngine is an engine over FB15k-237 (../shared/data) with a randomly
// initialised model of the reference size (d = 800, h = 1600, L = 4, or
// d,h,L from GAMMAE_BENCH_SIZE, e.g. "400,800,2"), built once per test
// binary.
var fbEngine = sync.OnceValues(func() (*Engine, error) {
	d, _, err := dataset.Open(context.Background(), filepath.Join("..", "..", "shared", "data", "FB15k-237-betae"), dataset.SourceAuto, dataset.ImportOptions{})
	if err != nil {
		return nil, err
	}
	cfg := gamma.DefaultConfig(d.KG.Entities.Len(), d.KG.Relations.Len())
	if size := os.Getenv("GAMMAE_BENCH_SIZE"); size != "" {
		if _, err := fmt.Sscanf(size, "%d,%d,%d", &cfg.Dim, &cfg.Hidden, &cfg.Layers); err != nil {
			return nil, fmt.Errorf("GAMMAE_BENCH_SIZE=%q: want d,h,L", size)
		}
	}
	m, err := gamma.New[float32](cfg, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		return nil, err
	}
	return New(d.KG, m, serve.Info{Dataset: "FB15k-237"}), nil
})

// fb3p is a 3p query grounded in FB15k-237's train graph.
func fb3p(b *testing.B, e *Engine) query.Node {
	g := e.kg.Train
	for h := int32(0); int(h) < g.N; h++ {
		rels, tails := g.Out.Edges(h)
		for i := range rels {
			r2s, mids := g.Out.Edges(tails[i])
			for j := range r2s {
				if r3s, _ := g.Out.Edges(mids[j]); len(r3s) > 0 {
					return proj(proj(proj(anchor(h), rels[i]), r2s[j]), r3s[0])
				}
			}
		}
	}
	b.Fatal("no 3p in the graph")
	return nil
}

// BenchmarkAnswerFB15k237 times answering 3p queries with top-10 on a
// FB15k-237-sized model: one query alone, and batches as the batcher forms
// them under concurrent load (ns/op is per batch), with the products in
// fp32 and in bf16.
func BenchmarkAnswerFB15k237(b *testing.B) {
	if _, err := os.Stat(filepath.Join("..", "..", "shared", "data", "FB15k-237-betae")); err != nil {
		b.Skipf("FB15k-237-betae not found in ../shared/data: %v", err)
	}
	e, err := fbEngine()
	if err != nil {
		b.Fatal(err)
	}
	q := fb3p(b, e)
	defer e.model.SetPrecision("fp32")
	for _, prec := range []gamma.Precision{"fp32", "bf16"} {
		if err := e.model.SetPrecision(prec); err != nil {
			b.Fatal(err)
		}
		for _, rows := range []int{1, 8} {
			qs := make([]query.Node, rows)
			for i := range qs {
				qs[i] = q
			}
			b.Run(fmt.Sprintf("%s/3p/batch=%d", prec, rows), func(b *testing.B) {
				e.AnswerQueries(context.Background(), qs, 10) // settle buffers and entity features
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, errs := e.AnswerQueries(context.Background(), qs, 10); errs[0] != nil {
						b.Fatal(errs[0])
					}
				}
			})
		}
	}
}
