package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/gammae/gammae/answer"
	"github.com/gammae/gammae/dataset"
	"github.com/gammae/gammae/evaluate"
	"github.com/gammae/gammae/gamma"
	"github.com/gammae/gammae/kg"
	"github.com/gammae/gammae/qlang"
	"github.com/gammae/gammae/query"
	"github.com/gammae/gammae/serve"
)

func init() {
	register(&command{
		Name:    "query",
		Args:    "[QUERY | -]",
		Summary: "Answer a question with a trained model: ranked entities, each observed in the graph or predicted.",
		Examples: `  gammae query --model runs/fb237 --names ../shared/data/FB15k-237-names \
      '?y : exists x . award_winner("Nobel Prize", x) & nationality(x, Germany) & field(x, ?y)'
  gammae query --model runs/fb237 -k 20 --explain 'i(p(Oscar, -award_winner), n(p(USA, -nationality)))'
  # Batch: one query per line (blank and # lines skipped), JSON lines out:
  gammae query --model runs/fb237 --json --file questions.txt > answers.jsonl
  cat questions.txt | gammae query --model runs/fb237 -

Query syntax:
  ` + wrapText(answer.Syntax, 76, "  "),
		Setup: func(fs *flag.FlagSet) func(ctx context.Context, e *env, args []string) error {
			mf := modelFlags{mapped: true} // a command that exits soon
			mf.define(fs)
			o := queryOptions{}
			fs.IntVar(&o.k, "k", 10, "number of answers per query")
			fs.BoolVar(&o.explain, "explain", false, "show the query tree with every node's best answers, the existential variables' answers, and for a chain the missing link behind each predicted answer")
			fs.StringVar(&o.variable, "variable", "", "list the answers of the existential variable `NAME` of a logic-form query (implies --explain)")
			fs.StringVar(&o.file, "file", "", "read queries from `FILE`, one per line (- for stdin)")
			fs.BoolVar(&o.json, "json", false, "write one JSON object per query (JSON lines) instead of tables")
			return func(ctx context.Context, e *env, args []string) error {
				args, err := parseInterspersed(fs, args)
				if err != nil {
					return errUsage
				}
				if o.k < 1 {
					return fmt.Errorf("-k %d: expected a positive number of answers", o.k)
				}
				src, err := querySource(e, o.file, args)
				if err != nil {
					return err
				}
				eng, _, err := mf.load(ctx, e.stderr)
				if err != nil {
					return err
				}
				return runQueries(ctx, e, eng, src, o)
			}
		},
	})
}

type queryOptions struct {
	k        int
	explain  bool
	variable string
	file     string
	json     bool
}

// parseInterspersed parses flags that follow positional arguments too, so
// that `gammae query --model RUN 'QUERY' -k 5` works. A lone "-" (stdin) is
// positional; "--" ends the flags.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for len(args) > 0 {
		a := args[0]
		if a == "--" {
			return append(pos, args[1:]...), nil
		}
		if a == "-" || !strings.HasPrefix(a, "-") {
			pos = append(pos, a)
			args = args[1:]
			continue
		}
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
	}
	return pos, nil
}

// source is where the queries come from: one query text, or lines.
type source struct {
	name   string    // for messages: "query", a file name or "stdin"
	single string    // the query given as an argument
	lines  io.Reader // batch input, nil for a single query
	close  func() error
}

// querySource picks the input: --file, "-" or no argument with stdin not a
// terminal give batch mode; otherwise the arguments are the query (joined
// with spaces, for a query the shell split).
func querySource(e *env, file string, args []string) (*source, error) {
	switch {
	case file != "" && len(args) > 0:
		return nil, fmt.Errorf("give queries either with --file or as an argument, not both")
	case file == "-" || len(args) == 1 && args[0] == "-":
		return &source{name: "stdin", lines: e.stdin}, nil
	case file != "":
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		return &source{name: file, lines: f, close: f.Close}, nil
	case len(args) > 0:
		return &source{name: "query", single: strings.Join(args, " ")}, nil
	case e.stdin != nil && !readerIsTerminal(e.stdin):
		return &source{name: "stdin", lines: e.stdin}, nil
	}
	return nil, errUsage
}

// readerIsTerminal reports whether r is an interactive terminal.
func readerIsTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// queryLine is one query of the input with its line number (1 for a
// single query).
type queryLine struct {
	line int
	text string
}

// queryChunk is how many input queries are answered together.
const queryChunk = 64

// runQueries answers every query of src, printing results in input order.
// Queries with errors are reported on stderr (with a caret under the
// error) and, in JSON mode, as error objects; the others are still
// answered.
func runQueries(ctx context.Context, e *env, eng *answer.Engine, src *source, o queryOptions) error {
	if src.close != nil {
		defer src.close()
	}
	out := bufio.NewWriter(e.stdout)
	defer out.Flush()
	p := &queryPrinter{e: e, out: out, o: o, src: src, resolver: eng.Resolver(), eng: eng}

	if src.lines == nil {
		p.answer(ctx, eng, []queryLine{{1, src.single}})
	} else {
		sc := bufio.NewScanner(src.lines)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		var chunk []queryLine
		n := 0
		for sc.Scan() {
			n++
			text := strings.TrimSpace(sc.Text())
			if text == "" || strings.HasPrefix(text, "#") {
				continue
			}
			chunk = append(chunk, queryLine{n, text})
			if len(chunk) == queryChunk {
				p.answer(ctx, eng, chunk)
				chunk = chunk[:0]
				if err := out.Flush(); err != nil {
					return err
				}
			}
		}
		if err := sc.Err(); err != nil {
			return fmt.Errorf("%s: line %d: %w", src.name, n+1, err)
		}
		p.answer(ctx, eng, chunk)
	}
	if err := out.Flush(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	switch {
	case p.total == 0:
		return fmt.Errorf("%s: no queries (blank and # lines are skipped)", src.name)
	case p.failed > 0:
		return fmt.Errorf("%d of %d queries failed", p.failed, p.total)
	}
	return nil
}

// queryPrinter writes results and errors.
type queryPrinter struct {
	e             *env
	out           *bufio.Writer
	o             queryOptions
	src           *source
	resolver      *qlang.DictResolver
	eng           *answer.Engine // for --explain's reasons
	total, failed int
	printed       int // tables printed, for blank lines between them
}

// answer parses and answers one chunk of queries and prints them in order.
func (p *queryPrinter) answer(ctx context.Context, eng *answer.Engine, lines []queryLine) {
	if len(lines) == 0 || ctx.Err() != nil {
		return
	}
	parsed := make([]query.Node, 0, len(lines))
	index := make([]int, 0, len(lines)) // parsed[i] is lines[index[i]]
	errs := make([]error, len(lines))
	for i, l := range lines {
		q, err := eng.Parse(l.text)
		if err != nil {
			errs[i] = err
			continue
		}
		parsed = append(parsed, q)
		index = append(index, i)
	}
	results := make([]*answer.Result, len(lines))
	rs, es := eng.AnswerQueries(ctx, parsed, p.o.k)
	for j, i := range index {
		results[i], errs[i] = rs[j], es[j]
	}
	nodes := make([][]answer.NodeAnswer, len(lines))
	vars := make([][]answer.VariableAnswer, len(lines))
	if p.o.variable != "" {
		p.o.explain = true
	}
	if p.o.explain {
		for j, i := range index {
			if errs[i] == nil {
				nodes[i], errs[i] = eng.Explain(ctx, parsed[j], min(p.o.k, explainTop))
			}
			if errs[i] == nil {
				vars[i], errs[i] = p.variables(ctx, eng, lines[i].text)
			}
		}
	}
	for i, l := range lines {
		p.total++
		if errs[i] != nil {
			p.failed++
			p.printError(l, errs[i])
			continue
		}
		if p.o.json {
			p.printJSON(l, results[i], nodes[i], vars[i], nil)
		} else {
			p.printTable(results[i], nodes[i])
			p.printVariables(vars[i])
		}
	}
}

// variables answers the existential variables of a query, all of them or
// the one --variable names (the whole top k for it).
func (p *queryPrinter) variables(ctx context.Context, eng *answer.Engine, text string) ([]answer.VariableAnswer, error) {
	_, vars, err := eng.ParseVariables(text)
	if err != nil {
		return nil, err
	}
	k := min(p.o.k, explainTop)
	if name := p.o.variable; name != "" {
		var names []string
		for _, v := range vars {
			if v.Name == name || strings.TrimPrefix(v.Name, "?") == strings.TrimPrefix(name, "?") {
				return eng.ExplainVariables(ctx, []qlang.Variable{v}, p.o.k), nil
			}
			names = append(names, v.Name)
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("--variable %s: the query has no existential variables (they are named in the logic form: ?y : exists x . …)", name)
		}
		return nil, fmt.Errorf("--variable %s: no such variable in the query (it has %s)", name, strings.Join(names, ", "))
	}
	return eng.ExplainVariables(ctx, vars, k), nil
}

// printVariables writes the variables' answers under a result.
func (p *queryPrinter) printVariables(vars []answer.VariableAnswer) {
	if len(vars) == 0 {
		return
	}
	fmt.Fprintln(p.out, "variables (* observed in the graph):")
	for _, v := range vars {
		fmt.Fprintf(p.out, "  %s %s\n", v.Name, nodeSummary(answer.NodeAnswer{Result: v.Result, Error: v.Error}))
	}
}

// explainTop is the number of answers --explain shows per node.
const explainTop = 5

// queryJSON is one line of --json output.
type queryJSON struct {
	Input string `json:"input"`
	Line  int    `json:"line,omitempty"` // input line, in batch mode
	*answer.Result
	Nodes     []answer.NodeAnswer     `json:"nodes,omitempty"`     // --explain: every node's answers
	Variables []answer.VariableAnswer `json:"variables,omitempty"` // and every variable's
	Error     *serve.ErrorBody        `json:"error,omitempty"`
}

func (p *queryPrinter) printJSON(l queryLine, r *answer.Result, nodes []answer.NodeAnswer, vars []answer.VariableAnswer, qerr error) {
	v := queryJSON{Input: l.text, Result: r, Nodes: nodes, Variables: vars}
	if p.src.lines != nil {
		v.Line = l.line
	}
	if qerr != nil {
		v.Error = &serve.ErrorBody{Message: qerr.Error()}
		var pe serve.Positioner
		if errors.As(qerr, &pe) {
			v.Error.Line, v.Error.Column = pe.Position()
		}
	}
	enc := json.NewEncoder(p.out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(p.e.stderr, "gammae query: %v\n", err)
	}
}

// printError reports a failed query on stderr: each error of a parse with
// its position and a caret under the query text; in JSON mode also as an
// error object on stdout.
func (p *queryPrinter) printError(l queryLine, err error) {
	if p.o.json {
		p.printJSON(l, nil, nil, nil, err)
	}
	var list qlang.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		if p.src.lines != nil {
			fmt.Fprintf(p.e.stderr, "%s:%d: %v\n", p.src.name, l.line, err)
		} else {
			fmt.Fprintf(p.e.stderr, "%s: %v\n", p.src.name, err)
		}
		return
	}
	// Positions are in the input: a batch query's line 1 is its line of
	// the file.
	srcLines := strings.Split(l.text, "\n")
	for _, qe := range list {
		fmt.Fprintf(p.e.stderr, "%s:%d:%d: %s\n", p.src.name, l.line+qe.Pos.Line-1, qe.Pos.Column, qe.Msg)
		if qe.Pos.Line >= 1 && qe.Pos.Line <= len(srcLines) {
			text := srcLines[qe.Pos.Line-1]
			fmt.Fprintf(p.e.stderr, "    %s\n    %s^\n", text, caretPad(text, qe.Pos.Column))
		}
	}
}

// caretPad is the white space that puts a caret under column col (counted
// in characters) of text, keeping its tabs so that the caret lines up.
func caretPad(text string, col int) string {
	var b strings.Builder
	for i, r := range text {
		if utf8.RuneCountInString(text[:i]) >= col-1 {
			break
		}
		if r == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
	}
	for n := utf8.RuneCountInString(text); n < col-1; n++ { // past the end
		b.WriteByte(' ')
	}
	return b.String()
}

// printTable writes one result as a header and a table of answers.
func (p *queryPrinter) printTable(r *answer.Result, nodes []answer.NodeAnswer) {
	w := p.out
	if p.printed > 0 {
		fmt.Fprintln(w)
	}
	p.printed++
	fmt.Fprintf(w, "query:     %s\n", r.Query)
	est := "n/a (a softmax-family loss)"
	if r.EstimatedAnswers != nil {
		est = formatCount(*r.EstimatedAnswers)
	}
	fmt.Fprintf(w, "structure: %s   entropy: %.4g   estimated answers: %s   observed answers: %d   (%.1f ms)\n",
		r.Structure, r.Entropy, est, r.ObservedAnswers, r.TookMS)
	if p.o.explain {
		fmt.Fprintln(w, "parsed, with what the model believes of every node (* observed in the graph):")
		lines := strings.Split(strings.TrimRight(r.Explain, "\n"), "\n")
		for i, line := range lines {
			fmt.Fprintf(w, "  %s\n", line)
			if i < len(nodes) && i > 0 {
				if s := nodeSummary(nodes[i]); s != "" {
					fmt.Fprintf(w, "  %s%s\n", treeIndent(line), s)
				}
			}
		}
	}
	defer p.printWhy(r, nodes)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "rank\tentity\tid\t    score\tstatus")
	for _, a := range r.Answers {
		name := a.Name
		if a.Label != "" && a.Label != a.Name {
			name = a.Label + " (" + a.Name + ")"
		}
		status := "predicted"
		if a.Observed {
			status = "observed"
		}
		fmt.Fprintf(tw, "%4d\t%s\t#%d\t%9.4f\t%s\n", a.Rank, name, a.ID, a.Score, status)
	}
	tw.Flush()
}

// printWhy gives, under --explain, for the first predicted answers of a
// chain query, a path through the variables' candidates on which one edge
// is missing from the graph: the link the model predicts.
func (p *queryPrinter) printWhy(r *answer.Result, nodes []answer.NodeAnswer) {
	if len(nodes) < 2 || p.eng == nil {
		return
	}
	n := len(nodes) - 1 // relations of a chain; nodes[n] is the anchor
	cands := make([][]int32, n-1)
	for j := range cands {
		if res := nodes[n-1-j].Result; res != nil {
			for _, a := range res.Answers {
				cands[j] = append(cands[j], a.ID)
			}
		}
	}
	shown := 0
	for _, a := range r.Answers {
		if a.Observed || shown == 3 {
			continue
		}
		if why, ok := p.eng.WhyPredicted(nodes[0].Query, a.ID, cands); ok {
			if shown == 0 {
				fmt.Fprintln(p.out, "why the first predicted answers:")
			}
			name := a.Name
			if a.Label != "" {
				name = a.Label
			}
			fmt.Fprintf(p.out, "  %s: %s\n", name, p.eng.FormatWhy(why))
			shown++
		}
	}
}

// nodeSummary is one node's best answers on a line, observed ones starred.
func nodeSummary(n answer.NodeAnswer) string {
	switch {
	case n.Error != "":
		return "(" + n.Error + ")"
	case n.Result == nil:
		return ""
	}
	var parts []string
	for _, a := range n.Result.Answers {
		name := a.Name
		if a.Label != "" {
			name = a.Label
		}
		if a.Observed {
			name += "*"
		}
		parts = append(parts, name)
	}
	est := ""
	if n.Result.EstimatedAnswers != nil {
		est = fmt.Sprintf(", ~%s estimated", formatCount(*n.Result.EstimatedAnswers))
	}
	return fmt.Sprintf("→ %s   (%d observed%s, entropy %.4g)", strings.Join(parts, ", "), n.Result.ObservedAnswers, est, n.Result.Entropy)
}

// treeIndent is the continuation of a tree line's prefix for a line under
// it: the branch characters become "│" or blanks.
func treeIndent(line string) string {
	var b strings.Builder
	for _, r := range line {
		switch r {
		case '├', '│':
			b.WriteString("│")
		case '└', '─', ' ':
			b.WriteRune(' ')
		default:
			b.WriteString("    ")
			return b.String()
		}
	}
	return b.String()
}

// formatCount writes an estimated count with sensible precision.
func formatCount(x float64) string {
	switch {
	case x < 10:
		return strconv.FormatFloat(x, 'f', 2, 64)
	case x < 1000:
		return strconv.FormatFloat(x, 'f', 1, 64)
	}
	return strconv.FormatFloat(x, 'f', 0, 64)
}

// modelFlags locate a model and the graph it answers over; query and serve
// share them.
type modelFlags struct {
	model, data, names, union string
	precision                 string
	last                      bool
	// mapped maps the dataset file (dataset.LoadMapped): for commands that
	// exit soon, not for a server, whose file may be rewritten under it.
	mapped bool
}

func (f *modelFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.model, "model", "", "trained model (required): a `RUN` directory or a model file (.safetensors)")
	fs.StringVar(&f.data, "data", "", "dataset: a .gqd file or graph directory at `PATH`; default: the one the run was trained on")
	fs.StringVar(&f.names, "names", "", "`DIR` with entity2text.txt and/or relation2text.txt: display names for ids (e.g. ../shared/data/FB15k-237-names)")
	fs.BoolVar(&f.last, "last", false, "use the run's latest model rather than its best")
	fs.StringVar(&f.precision, "precision", "fp32", precisionUsage)
	fs.StringVar(&f.union, "union", "dnf", "how to answer unions: dnf (best branch, as the benchmark evaluates them), moment (the trained union operator), dm (De Morgan) or mixture")
}

// load reads the model, its graph and display names and builds an engine;
// notes on the model (an outdated calibration) go to log.
func (f *modelFlags) load(ctx context.Context, log io.Writer) (*answer.Engine, *loadedModel, error) {
	lm, err := f.read(ctx, log)
	if err != nil {
		return nil, nil, err
	}
	name := strings.TrimSuffix(filepath.Base(filepath.Clean(lm.dataset)), ".gqd")
	info := serve.Info{Dataset: name, TrainedSteps: lm.steps, Calibration: lm.shifts()}
	if info.Loss, info.Estimates, err = lm.loss(); err != nil {
		return nil, nil, err
	}
	if lm.qm != nil {
		info.Model, info.Dim, info.Union = lm.title, lm.dim, "dnf"
		return answer.NewModel(lm.kg, lm.qm, info), lm, nil
	}
	return answer.New(lm.kg, lm.model, info), lm, nil
}

func (f *modelFlags) read(ctx context.Context, log io.Writer) (*loadedModel, error) {
	if f.model == "" {
		return nil, fmt.Errorf("--model is required: a run directory or a model file")
	}
	lm, err := openModel(f.model, !f.last, log)
	if err != nil {
		return nil, err
	}
	if err := lm.setPrecision(f.precision); err != nil {
		return nil, err
	}
	meta := lm.meta
	lm.dataset = f.data
	if lm.dataset == "" {
		if meta == nil || meta.Dataset == "" {
			return nil, fmt.Errorf("%s: no dataset recorded with the model; give one with --data", f.model)
		}
		lm.dataset = meta.Dataset
		if !filepath.IsAbs(lm.dataset) {
			if _, err := os.Stat(lm.dataset); err != nil {
				lm.dataset = filepath.Join(f.model, meta.Dataset) // relative to the run
			}
		}
	}
	d, _, err := dataset.Open(ctx, lm.dataset, dataset.SourceAuto, dataset.ImportOptions{Mapped: f.mapped})
	if err != nil {
		if f.data == "" {
			return nil, fmt.Errorf("dataset of run %s: %w (give another with --data)", f.model, err)
		}
		return nil, err
	}
	lm.kg = d.KG
	if lm.qm != nil {
		if f.union != "dnf" {
			return nil, fmt.Errorf("--union %s: %s answers unions by their best DNF branch only", f.union, lm.title)
		}
	} else if lm.model, err = evaluate.Variant(lm.model, gamma.Union(f.union), false); err != nil {
		return nil, fmt.Errorf("--union %s: %w", f.union, err)
	}
	if err := lm.checkGraph(lm.kg, lm.dataset); err != nil {
		return nil, err
	}
	if f.names != "" {
		if lm.labels, err = loadNames(lm.kg, f.names); err != nil {
			return nil, err
		}
	}
	return lm, nil
}

// loadNames sets display labels from dir/entity2text.txt and
// dir/relation2text.txt; at least one must exist.
func loadNames(k *kg.KG, dir string) (string, error) {
	var parts []string
	found := false
	// A loaded dataset may carry empty, non-nil label lists, which
	// kg.Dict.SetLabels would index out of range.
	for _, d := range []*kg.Dict{&k.Entities, &k.Relations} {
		if len(d.Labels) != len(d.Names) {
			d.Labels = nil
		}
	}
	for _, f := range []struct {
		file, what string
		n          int
		load       func(*kg.KG, string) (int, error)
	}{
		{"entity2text.txt", "entities", k.Entities.Len(), kg.LoadEntityNames},
		{"relation2text.txt", "relations", k.Relations.Len(), kg.LoadRelationNames},
	} {
		path := filepath.Join(dir, f.file)
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			continue
		}
		found = true
		got, err := f.load(k, path)
		if err != nil {
			return "", err
		}
		parts = append(parts, fmt.Sprintf("%d of %d %s", got, f.n, f.what))
	}
	if !found {
		return "", fmt.Errorf("--names %s: neither entity2text.txt nor relation2text.txt is there", dir)
	}
	return "labelled " + strings.Join(parts, " and "), nil
}
