package dataset

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gammae/gammae/kg"
)

// Source kinds accepted by Open.
const (
	SourceAuto      = ""          // decide from what path holds
	SourceFile      = "file"      // a .gqd file written by Save
	SourceBenchmark = "benchmark" // a benchmark directory (ImportBenchmark)
	SourceTriples   = "triples"   // a directory of named triples (ImportTriples)
)

// IsBenchmark reports whether dir looks like a benchmark directory: it has
// the id dictionary id2ent.pkl.
func IsBenchmark(dir string) bool { return exists(filepath.Join(dir, "id2ent.pkl")) }

// Detect names the kind of source at path: a file is a saved dataset; a
// directory is a benchmark if IsBenchmark, otherwise named triples.
func Detect(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	switch {
	case !fi.IsDir():
		return SourceFile, nil
	case IsBenchmark(path):
		return SourceBenchmark, nil
	}
	return SourceTriples, nil
}

// Open reads a dataset from any source kind (SourceAuto: Detect). The
// report is nil for a saved file.
func Open(ctx context.Context, path, kind string, opts ImportOptions) (*Dataset, *Report, error) {
	if kind == SourceAuto {
		var err error
		if kind, err = Detect(path); err != nil {
			return nil, nil, err
		}
	}
	switch kind {
	case SourceFile:
		d, err := load(path, opts.Mapped)
		return d, nil, err
	case SourceBenchmark:
		return ImportBenchmark(ctx, path, opts)
	case SourceTriples:
		return ImportTriples(path, kg.TripleOptions{KeepUnseen: opts.KeepUnseen})
	}
	return nil, nil, fmt.Errorf("unknown source kind %q (want %s, %s or %s)", kind, SourceFile, SourceBenchmark, SourceTriples)
}

// ImportTriples reads a directory of named triples (kg.LoadTriples) into a
// dataset with the graph and no queries.
func ImportTriples(dir string, opts kg.TripleOptions) (*Dataset, *Report, error) {
	start := time.Now()
	k, kr, err := kg.LoadTriples(dir, opts)
	if err != nil {
		return nil, nil, err
	}
	rep := &Report{Dir: dir, Elapsed: time.Since(start)}
	for _, f := range kr.Files {
		if f != "" {
			rep.Read = append(rep.Read, filepath.Base(f))
		}
	}
	rep.Notes = append(rep.Notes, "triples: "+kr.String())
	return &Dataset{KG: k}, rep, nil
}
