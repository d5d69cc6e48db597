package dataset

import (
	"bufio"
	"fmt"
	"github.com/gammae/gammae/internal/atomicfile"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"

	"github.com/gammae/gammae/kg"
	"github.com/gammae/gammae/pickle"
	"github.com/gammae/gammae/query"
)

// ExportBenchmark writes d in the benchmark's file format into dir (created
// if needed), loadable with Python's pickle.load and no extra modules:
// id2ent/ent2id/id2rel/rel2id.pkl (dicts), train/valid/test.txt (the id
// triples each graph adds, inverses included), stats.txt, and for each
// split that has queries {split}-queries.pkl (a defaultdict(set) from
// structure tuple to grounded queries) with train-answers.pkl or
// {split}-{easy,hard}-answers.pkl (defaultdict(set) from grounded query to
// entity ids). Every file is written atomically.
func ExportBenchmark(dir string, d *Dataset) error {
	if d == nil || d.KG == nil {
		return fmt.Errorf("export %s: no knowledge graph", dir)
	}
	k := d.KG
	outLv, _, err := levels(k)
	if err != nil {
		return fmt.Errorf("export %s: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var jobs []func() error
	dump := func(name string, v func() (any, error)) {
		jobs = append(jobs, func() error {
			x, err := v()
			if err != nil {
				return fmt.Errorf("export %s: %w", name, err)
			}
			return pickle.DumpFile(filepath.Join(dir, name), x)
		})
	}
	for _, c := range []struct {
		dict       *kg.Dict
		id2x, x2id string
	}{{&k.Entities, "id2ent.pkl", "ent2id.pkl"}, {&k.Relations, "id2rel.pkl", "rel2id.pkl"}} {
		dump(c.id2x, func() (any, error) { return idDict(c.dict, false), nil })
		dump(c.x2id, func() (any, error) { return idDict(c.dict, true), nil })
	}
	for i, name := range splitNames {
		jobs = append(jobs, func() error { return writeTriples(filepath.Join(dir, name+".txt"), k.Test, outLv, byte(i)) })
	}
	jobs = append(jobs, func() error {
		return writeFile(filepath.Join(dir, "stats.txt"), func(w *bufio.Writer) error {
			_, err := fmt.Fprintf(w, "numentity: %d\nnumrelations: %d", k.Test.N, k.Test.R)
			return err
		})
	})
	for i, s := range d.splits() {
		if len(s.Groups) == 0 {
			continue
		}
		dump(splitNames[i]+"-queries.pkl", func() (any, error) {
			groups := make([]pickle.QueryGroup, len(s.Groups))
			for j, g := range s.Groups {
				st, err := query.ParseTuple(g.Shape)
				if err != nil {
					return nil, err
				}
				qs, err := groupTuples(g)
				if err != nil {
					return nil, err
				}
				groups[j] = pickle.QueryGroup{Structure: st, Queries: qs}
			}
			return pickle.EncodeQueries(groups), nil
		})
		for j, name := range answerFiles[i] {
			dump(name, func() (any, error) {
				var qs []query.Tuple
				var ans [][]int32
				for _, g := range s.Groups {
					t, err := groupTuples(g)
					if err != nil {
						return nil, err
					}
					qs = append(qs, t...)
					for q := range g.Len() {
						if j == 0 {
							ans = append(ans, g.Answers(q))
						} else {
							ans = append(ans, g.EasyAnswers(q))
						}
					}
				}
				return pickle.EncodeAnswers(qs, ans)
			})
		}
	}
	return runJobs(jobs, runtime.GOMAXPROCS(0))
}

// runJobs runs the jobs on up to workers goroutines and returns the first
// error in job order.
func runJobs(jobs []func() error, workers int) error {
	errs := make([]error, len(jobs))
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for i, job := range jobs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			errs[i] = job()
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// idDict is the id → name dict, or name → id when reverse.
func idDict(d *kg.Dict, reverse bool) *pickle.Dict {
	out := &pickle.Dict{Items: make([]pickle.Item, len(d.Names))}
	for i, n := range d.Names {
		if reverse {
			out.Items[i] = pickle.Item{Key: n, Value: i}
		} else {
			out.Items[i] = pickle.Item{Key: i, Value: n}
		}
	}
	return out
}

func groupTuples(g *Group) ([]query.Tuple, error) {
	out := make([]query.Tuple, g.Len())
	for i := range out {
		t, err := query.ToTuple(g.Query(i))
		if err != nil {
			return nil, fmt.Errorf("%s query %d: %w", g.Name(), i, err)
		}
		out[i] = t
	}
	return out, nil
}

// writeTriples writes the edges of g at the given level (see levels): the
// edges that split adds, as head<TAB>relation<TAB>tail id lines.
func writeTriples(path string, g *kg.Graph, lv []byte, level byte) error {
	return writeFile(path, func(w *bufio.Writer) error {
		var line []byte
		for h := range g.N {
			lo := g.Out.Off[h]
			rels, nbrs := g.Out.Edges(int32(h))
			for i := range rels {
				if lv[int(lo)+i] != level {
					continue
				}
				line = strconv.AppendInt(line[:0], int64(h), 10)
				line = append(line, '\t')
				line = strconv.AppendInt(line, int64(rels[i]), 10)
				line = append(line, '\t')
				line = strconv.AppendInt(line, int64(nbrs[i]), 10)
				line = append(line, '\n')
				if _, err := w.Write(line); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// writeFile writes path atomically through a buffered writer.
func writeFile(path string, fill func(w *bufio.Writer) error) error {
	return atomicfile.Write(path, func(f *os.File) error {
		w := bufio.NewWriterSize(f, 1<<16)
		if err := fill(w); err != nil {
			return err
		}
		return w.Flush()
	})
}
