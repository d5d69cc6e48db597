package dataset

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gammae/gammae/kg"
	"github.com/gammae/gammae/pickle"
	"github.com/gammae/gammae/query"
)

// ImportOptions tune ImportBenchmark.
type ImportOptions struct {
	// Workers is the number of goroutines reading pickles and computing
	// answers; 0 means one per CPU.
	Workers int
	// Recompute ignores the answer pickles and computes every answer from
	// the triples.
	Recompute bool
	// Verify also computes the answers of queries whose answers come from
	// pickles and counts those that differ (Report.Mismatches).
	Verify bool
	// Log receives one progress line per step; nil for none.
	Log io.Writer
	// KeepUnseen keeps, for named triples (ImportTriples through Open),
	// the valid/test triples whose entity or relation train lacks.
	KeepUnseen bool
	// Mapped opens a saved dataset file with LoadMapped instead of Load.
	Mapped bool
}

// Report says what ImportBenchmark read and what it computed.
type Report struct {
	Dir      string
	Read     []string // files read, relative to Dir
	Computed []string // answers computed from the triples, and why
	Queries  [3]int   // per split (train, valid, test)
	// NoAnswers counts queries without answers (train) or without hard
	// answers (valid/test): the benchmark never samples those.
	NoAnswers [3]int
	// Missing counts queries absent from an answers file that was read;
	// like the benchmark's defaultdicts, they get no answers.
	Missing int
	// Mismatches counts queries whose pickled answers differ from the
	// computed ones (only with Verify).
	Mismatches int
	Notes      []string // other facts worth telling
	Elapsed    time.Duration
}

// String summarises the report in a few lines.
func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "imported %s in %.2fs: %d train, %d valid, %d test queries\n", r.Dir, r.Elapsed.Seconds(), r.Queries[0], r.Queries[1], r.Queries[2])
	if len(r.Read) > 0 {
		fmt.Fprintf(&b, "read: %s\n", strings.Join(r.Read, ", "))
	}
	for _, c := range r.Computed {
		fmt.Fprintf(&b, "computed: %s\n", c)
	}
	for _, n := range r.Notes {
		fmt.Fprintln(&b, n)
	}
	for i, n := range r.NoAnswers {
		if n > 0 {
			what := "hard answers"
			if i == 0 {
				what = "answers"
			}
			fmt.Fprintf(&b, "warning: %d %s queries have no %s\n", n, splitNames[i], what)
		}
	}
	if r.Missing > 0 {
		fmt.Fprintf(&b, "warning: %d queries are absent from their answers files (taken as no answers)\n", r.Missing)
	}
	if r.Mismatches > 0 {
		fmt.Fprintf(&b, "warning: %d queries have pickled answers that differ from the computed ones\n", r.Mismatches)
	}
	return b.String()
}

// answerFiles names the answer pickles of each split: the answers (train)
// or hard answers first, then the easy answers.
var answerFiles = [3][]string{
	{"train-answers.pkl"},
	{"valid-hard-answers.pkl", "valid-easy-answers.pkl"},
	{"test-hard-answers.pkl", "test-easy-answers.pkl"},
}

// ImportBenchmark reads a benchmark directory: the graph (kg.LoadBenchmark)
// and whichever query pickles {train,valid,test}-queries.pkl exist, with
// their answers from train-answers.pkl and {valid,test}-{easy,hard}-
// answers.pkl. Answers whose files are missing are computed from the
// triples by the benchmark's protocol (see Answers), which the Report says.
// Groups follow query.Structures order; queries within a group are sorted
// by slot ids.
func ImportBenchmark(ctx context.Context, dir string, opts ImportOptions) (*Dataset, *Report, error) {
	start := time.Now()
	rep := &Report{Dir: dir}
	logf := func(format string, args ...any) {
		if opts.Log != nil {
			fmt.Fprintf(opts.Log, "[%5.1fs] %s\n", time.Since(start).Seconds(), fmt.Sprintf(format, args...))
		}
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	k, err := kg.LoadBenchmark(dir)
	if err != nil {
		return nil, nil, err
	}
	logf("graph: %d entities, %d relations, %d/%d/%d edges (train/valid/test)", k.Entities.Len(), k.Relations.Len(), k.Train.NumEdges(), k.Valid.NumEdges(), k.Test.NumEdges())
	d := &Dataset{KG: k}
	files, err := readPickles(dir, opts, logf)
	if err != nil {
		return nil, nil, err
	}
	for i := range files {
		if files[i].queries == nil {
			continue
		}
		for _, f := range files[i].all() {
			rep.Read = append(rep.Read, f.name)
		}
		t := time.Now()
		verb, err := importSplit(ctx, k, kg.Split(i), files[i], d.splits()[i], opts, rep)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", dir, err)
		}
		logf("%s: %s %d queries of %d structures (%.2fs)", splitNames[i], verb, rep.Queries[i], len(d.splits()[i].Groups), time.Since(t).Seconds())
	}
	if len(rep.Read) == 0 {
		logf("no query files in %s: the dataset holds the graph only", dir)
	}
	rep.Elapsed = time.Since(start)
	return d, rep, nil
}

// pickleFile is one pickle to read and what it held.
type pickleFile struct {
	name    string
	queries []pickle.QueryGroup
	answers map[string][]int32
	err     error
}

// splitFiles are the pickles of one split; nil when absent (or, for
// answers, not to be read).
type splitFiles struct {
	queries *pickleFile
	answers []*pickleFile // in answerFiles order
}

func (s splitFiles) all() []*pickleFile {
	var out []*pickleFile
	for _, f := range append([]*pickleFile{s.queries}, s.answers...) {
		if f != nil {
			out = append(out, f)
		}
	}
	return out
}

// readPickles reads the query and answer pickles present in dir, several
// at a time.
func readPickles(dir string, opts ImportOptions, logf func(string, ...any)) ([3]splitFiles, error) {
	var files [3]splitFiles
	var all []*pickleFile
	for i := range files {
		name := splitNames[i] + "-queries.pkl"
		if !exists(filepath.Join(dir, name)) {
			continue
		}
		files[i].queries = &pickleFile{name: name}
		for _, name := range answerFiles[i] {
			var f *pickleFile
			if !opts.Recompute && exists(filepath.Join(dir, name)) {
				f = &pickleFile{name: name}
			}
			files[i].answers = append(files[i].answers, f)
		}
		all = append(all, files[i].all()...)
	}
	sem := make(chan struct{}, opts.Workers)
	var wg sync.WaitGroup
	for _, f := range all {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			t := time.Now()
			path := filepath.Join(dir, f.name)
			if strings.HasSuffix(f.name, "-queries.pkl") {
				f.queries, f.err = pickle.LoadQueries(path)
			} else {
				f.answers, f.err = pickle.LoadAnswers(path)
			}
			if f.err == nil {
				logf("read %s (%.2fs)", f.name, time.Since(t).Seconds())
			}
		})
	}
	wg.Wait()
	for _, f := range all {
		if f.err != nil {
			return files, f.err
		}
	}
	return files, nil
}

// importSplit converts one split's queries into s's groups, taking answers
// from the pickles or computing them, and returns what it did.
func importSplit(ctx context.Context, k *kg.KG, split kg.Split, files splitFiles, s *Split, opts ImportOptions, rep *Report) (verb string, err error) {
	i := int(split)
	var ans, easy map[string][]int32
	var absent []string
	for j, f := range files.answers {
		switch {
		case f == nil:
			absent = append(absent, answerFiles[i][j])
		case j == 0:
			ans = f.answers
		default:
			easy = f.answers
		}
	}
	compute := len(absent) > 0
	for _, qg := range files.queries.queries {
		g, missing, err := groupFromPickle(k, qg, ans, easy, compute)
		if err != nil {
			return "", fmt.Errorf("%s: %w", files.queries.name, err)
		}
		rep.Missing += missing
		s.Groups = append(s.Groups, g)
	}
	verb = "converted"
	switch {
	case compute:
		why := "no " + strings.Join(absent, " or ")
		if opts.Recompute {
			why = "asked to recompute"
		}
		rep.Computed = append(rep.Computed, fmt.Sprintf("%s answers from the triples (%s)", splitNames[i], why))
		verb = "answered"
	case opts.Verify:
		verb = "verified"
	}
	for _, g := range s.Groups {
		switch {
		case compute:
			err = answerGroup(ctx, k, split, g, opts.Workers)
		case opts.Verify:
			var bad int
			bad, err = verifyGroup(ctx, k, split, g, opts.Workers)
			rep.Mismatches += bad
		}
		if err != nil {
			return "", err
		}
		g.Sort()
		rep.Queries[i] += g.Len()
		for q := range g.Len() {
			if len(g.Answers(q)) == 0 {
				rep.NoAnswers[i]++
			}
		}
	}
	sortGroups(s)
	return verb, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

// groupFromPickle converts the queries of one structure, taking answers
// from the maps unless they are to be computed. It returns the number of
// queries absent from an answers map.
func groupFromPickle(k *kg.KG, qg pickle.QueryGroup, ans, easy map[string][]int32, compute bool) (*Group, int, error) {
	shape := query.FormatTuple(qg.Structure)
	tmpl, err := query.FromTuple(qg.Structure)
	if err != nil {
		return nil, 0, fmt.Errorf("structure %s: %w", shape, err)
	}
	g, err := NewGroup(query.Shape(tmpl))
	if err != nil {
		return nil, 0, err
	}
	if g.Shape != shape {
		return nil, 0, fmt.Errorf("structure %s reads as %s", shape, g.Shape)
	}
	kinds := slotKinds(g.Template, nil)
	missing := 0
	ids := make([]int32, 0, g.Slots)
	for _, t := range qg.Queries {
		q, err := query.FromTuple(t)
		if err != nil {
			return nil, 0, fmt.Errorf("structure %s: %w", shape, err)
		}
		key := query.FormatTuple(t)
		if s := query.Shape(q); s != shape {
			return nil, 0, fmt.Errorf("query %s has structure %s, listed under %s", key, s, shape)
		}
		ids = append(ids[:0], query.Slots(q)...)
		for j, id := range ids {
			if limit := limitOf(k, kinds[j]); int(id) >= limit {
				return nil, 0, fmt.Errorf("query %s: id %d out of range [0,%d)", key, id, limit)
			}
		}
		if compute {
			g.Append(ids, nil, nil)
			continue
		}
		a, okA := ans[key]
		e, okE := easy[key]
		if !okA || easy != nil && !okE {
			missing++
		}
		g.Append(ids, a, e)
	}
	return g, missing, nil
}

func limitOf(k *kg.KG, entity bool) int {
	if entity {
		return k.Test.N
	}
	return k.Test.R
}

// verifyGroup counts the queries of g whose answers differ from the
// computed ones.
func verifyGroup(ctx context.Context, k *kg.KG, split kg.Split, g *Group, workers int) (int, error) {
	c := &Group{Shape: g.Shape, Template: g.Template, Slots: g.Slots, IDs: g.IDs}
	if err := answerGroup(ctx, k, split, c, workers); err != nil {
		return 0, err
	}
	bad := 0
	for i := range g.Len() {
		if !slices.Equal(g.Answers(i), c.Answers(i)) || !slices.Equal(g.EasyAnswers(i), c.EasyAnswers(i)) {
			bad++
		}
	}
	return bad, nil
}

// sortGroups orders groups as query.Structures, then other shapes by name.
func sortGroups(s *Split) {
	slices.SortStableFunc(s.Groups, func(a, b *Group) int {
		if ra, rb := structureRank(a.Shape), structureRank(b.Shape); ra != rb {
			return ra - rb
		}
		return strings.Compare(a.Shape, b.Shape)
	})
}

// structureRank is the position of a shape in query.Structures, or after
// them all.
func structureRank(shape string) int {
	for i, st := range query.Structures {
		if st.Shape == shape {
			return i
		}
	}
	return len(query.Structures)
}
