// Command hostspeed measures, on the machine it runs on and in one run with
// fp32 and bf16 alternated, the figures the speed targets are stated in:
// training iterations of the hour preset (d=200), d=400 and d=800, a full
// FB15k-237 test evaluation and serving latency at d=400, the
// Gamma-features kernels' vector level against pure Go, and whether the
// AMX tile kernel ran. It prints the
// host (processor and the CPUID flags that matter), a table with the
// targets beside the figures, and writes everything as JSON:
//
//	go run ./scripts/hostspeed -data fb237.gqd -rounds 2 -json hostspeed.json
//
// Run it from the repository's root on an otherwise idle machine. It builds
// gammae with GOEXPERIMENT=simd (or takes -gammae) and trains an untrained
// d=400 model for the evaluation in a temporary directory. -short times
// fewer iterations and a sample of the test queries: a check that the
// script works, not figures to report.
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
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gammae/gammae/internal/atomicfile"
	"github.com/gammae/gammae/internal/cputime"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr, execRunner, execStarter); err != nil {
		fmt.Fprintln(os.Stderr, "hostspeed:", err)
		os.Exit(1)
	}
}

// runner runs a command (env added to the process's) and returns its
// standard output; tests replace it.
type runner func(ctx context.Context, env []string, name string, args ...string) ([]byte, error)

func execRunner(ctx context.Context, env []string, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:] // the command's last word on it
		}
		return out, fmt.Errorf("%s %s: %w: %s", filepath.Base(name), strings.Join(args, " "), err, msg)
	}
	return out, nil
}

// readHost names the processor and the CPUID flags that matter; tests
// replace it.
var readHost = func() (string, []string) { return cputime.CPUModel(), cputime.CPUFlags() }

// starter starts a server, waits for the first line of its standard
// output that contains marker and returns that line and a function that
// stops the server; tests replace it.
type starter func(ctx context.Context, marker, name string, args ...string) (line string, stop func(), err error)

func execStarter(ctx context.Context, marker, name string, args ...string) (string, func(), error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stderr = io.Discard // a line per request
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		found := false
		for sc.Scan() { // drained to the end, so the server never blocks on it
			if !found && strings.Contains(sc.Text(), marker) {
				found = true
				lines <- sc.Text()
			}
		}
		close(lines)
	}()
	select {
	case line, ok := <-lines:
		if ok {
			return line, stop, nil
		}
		stop()
		return "", nil, fmt.Errorf("%s %s: exited before printing %q", filepath.Base(name), strings.Join(args, " "), marker)
	case <-time.After(5 * time.Minute):
		stop()
		return "", nil, fmt.Errorf("%s %s: no %q after 5 minutes", filepath.Base(name), strings.Join(args, " "), marker)
	}
}

type options struct {
	data, gammae, work, jsonPath string
	rounds                       int
	short                        bool
}

func (o *options) validate() error {
	var errs []error
	if o.data == "" {
		errs = append(errs, errors.New("-data is required: a .gqd file of FB15k-237 (gammae data generate)"))
	}
	if o.rounds < 1 || o.rounds > 20 {
		errs = append(errs, fmt.Errorf("-rounds must be 1–20, got %d", o.rounds))
	}
	return errors.Join(errs...)
}

var precisions = []string{"fp32", "bf16"}

// trainCase is one training shape timed with `gammae train --bench`.
type trainCase struct {
	name  string
	args  []string
	bench int // iterations timed (after a warm-up)
	short int // the same with -short
}

var trainCases = []trainCase{
	{"hour preset (d=200, h=400)", []string{"--preset", "fb15k-237-hour"}, 20, 2},
	{"d=400 (h=800)", []string{"--preset", "fb15k-237", "--dim", "400", "--hidden", "800", "--layers", "2"}, 6, 2},
	{"d=800 (h=1600)", []string{"--preset", "fb15k-237"}, 3, 1},
}

// modelArgs make the d=400 model the evaluation and the server load: two
// iterations, enough for a model file; nearly untrained, it ranks as
// slowly as a model can (answers among half the entities).
var modelArgs = []string{"--preset", "fb15k-237", "--dim", "400", "--hidden", "800", "--layers", "2", "--steps", "2", "--valid-every", "-1"}

// sample is one timed command.
type sample struct {
	Precision string  `json:"precision"`
	Seconds   float64 `json:"seconds"` // per iteration, or the whole evaluation command
	// CPUSeconds per iteration (training), Median the median iteration,
	// Reported the evaluation's own time (without start-up and loading).
	CPUSeconds float64 `json:"cpu_seconds,omitempty"`
	Median     float64 `json:"median_seconds,omitempty"`
	Reported   float64 `json:"reported_seconds,omitempty"`
	Steal      float64 `json:"steal,omitempty"`
}

type measurement struct {
	Name    string   `json:"name"`
	Command []string `json:"command"`
	Samples []sample `json:"samples"` // in the order they ran
}

// median of the measurement's Seconds in precision p (0 if none).
func (m *measurement) median(p string) float64 {
	var v []float64
	for _, s := range m.Samples {
		if s.Precision == p {
			v = append(v, s.Seconds)
		}
	}
	return median(v)
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Sorted(slices.Values(v))
	if n := len(v); n%2 == 1 {
		return v[n/2]
	} else {
		return (v[n/2-1] + v[n/2]) / 2
	}
}

// serveSample is one loadtest of the server: latencies in ms at one and
// eight clients.
type serveSample struct {
	Precision string  `json:"precision"`
	P50One    float64 `json:"p50_1_ms"`
	P99One    float64 `json:"p99_1_ms"`
	P50Eight  float64 `json:"p50_8_ms"`
	P99Eight  float64 `json:"p99_8_ms"`
	RateEight float64 `json:"requests_per_second_8"`
}

// serveQueries are the 200 3-hop queries the serving figures use.
const serveQueries = "scripts/loadtest/testdata/fb15k237-3p.txt"

// check is one target: Met is nil where it does not apply to this host.
type check struct {
	Target string `json:"target"`
	Got    string `json:"got"`
	Met    *bool  `json:"met"`
	Why    string `json:"why,omitempty"` // why Met is nil
}

type report struct {
	Date     string        `json:"date"`
	Host     string        `json:"host"`
	Flags    []string      `json:"flags"`
	Kernels  string        `json:"kernels"`
	Rounds   int           `json:"rounds"`
	Short    bool          `json:"short,omitempty"`
	Training []measurement `json:"training"`
	Eval     measurement   `json:"eval"`
	// Features and FeaturesGrad are BenchmarkGammaFeatures(Grad)'s
	// M values/s by level (go, avx2, avx512).
	Features     map[string]float64 `json:"features"`
	FeaturesGrad map[string]float64 `json:"features_grad"`
	AMXTile      string             `json:"amx_tile"` // "pass", "skip: why", "fail"
	// Serve is scripts/loadtest against gammae serve of the d=400 model.
	Serve  []serveSample `json:"serve"`
	Checks []check       `json:"checks"`
}

func (r *report) hasAMX() bool { return slices.Contains(r.Flags, "amx_tile") }

func run(ctx context.Context, args []string, stdout, stderr io.Writer, exe runner, start starter) error {
	fs := flag.NewFlagSet("hostspeed", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.data, "data", "", "FB15k-237 dataset `FILE` (.gqd)")
	fs.StringVar(&o.gammae, "gammae", "", "gammae `BINARY` to time (default: build ./cmd/gammae with GOEXPERIMENT=simd)")
	fs.StringVar(&o.work, "work", "", "`DIR` for the binary, the d=400 model and the reports (default: a temporary one, removed)")
	fs.StringVar(&o.jsonPath, "json", "", "write the figures as JSON to `FILE`")
	fs.IntVar(&o.rounds, "rounds", 2, "alternations of fp32 and bf16 (the order flips each round)")
	fs.BoolVar(&o.short, "short", false, "few iterations and a sample of the test queries: checks the script, figures not for reporting")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err := o.validate(); err != nil {
		return err
	}
	if _, err := os.Stat(o.data); err != nil {
		return fmt.Errorf("-data: %w", err)
	}
	if o.work == "" {
		dir, err := os.MkdirTemp("", "hostspeed-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		o.work = dir
	} else if err := os.MkdirAll(o.work, 0o755); err != nil {
		return err
	}
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, "hostspeed: "+format+"\n", a...) }
	simd := []string{"GOEXPERIMENT=simd"}
	if o.gammae == "" {
		if _, err := os.Stat(filepath.Join("cmd", "gammae")); err != nil {
			return errors.New("run from the repository's root (./cmd/gammae not found), or give -gammae")
		}
		o.gammae = filepath.Join(o.work, "gammae")
		logf("building %s", o.gammae)
		if _, err := exe(ctx, simd, "go", "build", "-o", o.gammae, "./cmd/gammae"); err != nil {
			return err
		}
	}
	loadtest := filepath.Join(o.work, "loadtest")
	if _, err := exe(ctx, simd, "go", "build", "-o", loadtest, "./scripts/loadtest"); err != nil {
		return err
	}
	r := &report{Date: time.Now().UTC().Format("2006-01-02"), Rounds: o.rounds, Short: o.short}
	r.Host, r.Flags = readHost()
	logf("host %s; flags %s", r.Host, strings.Join(r.Flags, " "))

	// A directory of its own: train refuses to overwrite a run.
	tmp, err := os.MkdirTemp(o.work, "d400-")
	if err != nil {
		return err
	}
	model := filepath.Join(tmp, "run")
	logf("training the d=400 model to evaluate (%s)", model)
	if _, err := exe(ctx, nil, o.gammae, append([]string{"train", "--data", o.data, "--out", model}, modelArgs...)...); err != nil {
		return err
	}
	for _, c := range trainCases {
		r.Training = append(r.Training, measurement{Name: c.name, Command: benchArgs(o, c, "fp32|bf16")})
	}
	r.Eval = measurement{Name: "test evaluation, d=400", Command: evalArgs(o, model, "fp32|bf16")}
	for round := range o.rounds {
		order := precisions
		if round%2 == 1 {
			order = []string{precisions[1], precisions[0]}
		}
		for i, c := range trainCases {
			for _, p := range order {
				s, err := benchOnce(ctx, exe, o, c, p, r)
				if err != nil {
					return err
				}
				r.Training[i].Samples = append(r.Training[i].Samples, s)
				logf("round %d/%d: %s %s: %.3f s per iteration, %.3f CPU-s", round+1, o.rounds, c.name, p, s.Seconds, s.CPUSeconds)
			}
		}
		for _, p := range order {
			s, err := evalOnce(ctx, exe, o, model, p)
			if err != nil {
				return err
			}
			r.Eval.Samples = append(r.Eval.Samples, s)
			logf("round %d/%d: evaluation %s: %.2f s (%.2f s as it reports itself)", round+1, o.rounds, p, s.Seconds, s.Reported)
		}
		for _, p := range order {
			s, err := serveOnce(ctx, exe, start, o, model, loadtest, p)
			if err != nil {
				return err
			}
			r.Serve = append(r.Serve, s)
			logf("round %d/%d: serve %s: p99 %.2f ms at one client, %.2f ms at eight", round+1, o.rounds, p, s.P99One, s.P99Eight)
		}
	}
	logf("kernel benchmarks")
	out, err := exe(ctx, simd, "go", "test", "./internal/kernel", "-run", "^$", "-bench", "^BenchmarkGammaFeatures(Grad)?$", "-count", "1")
	if err != nil {
		return err
	}
	r.Features = parseBench(out, "BenchmarkGammaFeatures", "Mvalues/s")
	r.FeaturesGrad = parseBench(out, "BenchmarkGammaFeaturesGrad", "Mvalues/s")
	// A failing test exits non-zero; its verdict is the figure, not an error.
	out, err = exe(ctx, simd, "go", "test", "./internal/kernel", "-run", "^TestAMXTile$", "-v", "-count", "1")
	r.AMXTile = testVerdict(out, "TestAMXTile")
	if err != nil && r.AMXTile != "fail" {
		return err
	}
	r.Checks = checks(r)
	writeTable(stdout, r)
	if o.jsonPath != "" {
		b, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return err
		}
		if err := atomicfile.WriteFile(o.jsonPath, append(b, '\n')); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s\n", o.jsonPath)
	}
	return nil
}

func benchArgs(o options, c trainCase, p string) []string {
	n := c.bench
	if o.short {
		n = c.short
	}
	a := append([]string{"train", "--data", o.data}, c.args...)
	return append(a, "--precision", p, "--bench", strconv.Itoa(n))
}

func evalArgs(o options, model, p string) []string {
	a := []string{"eval", "--model", model, "--last", "--precision", p, "--quiet"}
	if o.short {
		a = append(a, "--per-structure", "200")
	}
	return a
}

// benchOnce times one training case in precision p; the first report
// names the kernels in use.
func benchOnce(ctx context.Context, exe runner, o options, c trainCase, p string, r *report) (sample, error) {
	path := filepath.Join(o.work, "bench.json")
	if _, err := exe(ctx, nil, o.gammae, append(benchArgs(o, c, p), "--json", path)...); err != nil {
		return sample{}, err
	}
	var b struct {
		Seconds    float64 `json:"seconds_per_iteration"`
		CPUSeconds float64 `json:"cpu_seconds_per_iteration"`
		Median     float64 `json:"median_seconds"`
		Steal      float64 `json:"steal"`
		Kernels    string  `json:"kernels"`
	}
	if err := readJSON(path, &b); err != nil {
		return sample{}, err
	}
	if r.Kernels == "" {
		r.Kernels = b.Kernels
	}
	return sample{Precision: p, Seconds: b.Seconds, CPUSeconds: b.CPUSeconds, Median: b.Median, Steal: max(b.Steal, 0)}, nil
}

func evalOnce(ctx context.Context, exe runner, o options, model, p string) (sample, error) {
	path := filepath.Join(o.work, "eval.json")
	start := time.Now()
	if _, err := exe(ctx, nil, o.gammae, append(evalArgs(o, model, p), "--json", path)...); err != nil {
		return sample{}, err
	}
	wall := time.Since(start).Seconds()
	var e struct {
		Seconds float64 `json:"seconds"`
	}
	if err := readJSON(path, &e); err != nil {
		return sample{}, err
	}
	return sample{Precision: p, Seconds: wall, Reported: e.Seconds}, nil
}

// serveOnce starts gammae serve of the model in precision p on a free
// loopback port and runs scripts/loadtest against it at 1 and 8 clients.
func serveOnce(ctx context.Context, exe runner, start starter, o options, model, loadtest, p string) (serveSample, error) {
	const marker = "listening on "
	line, stop, err := start(ctx, marker, o.gammae, "serve", "--model", model, "--last", "--precision", p, "--addr", "127.0.0.1:0")
	if err != nil {
		return serveSample{}, err
	}
	defer stop()
	_, url, _ := strings.Cut(line, marker)
	url, _, _ = strings.Cut(url, " ")
	n, dur := "5000", "15s"
	if o.short {
		n, dur = "300", "3s"
	}
	out, err := exe(ctx, nil, loadtest, "-url", url, "-queries", serveQueries, "-c", "1,8", "-n", n, "-duration", dur)
	if err != nil {
		return serveSample{}, err
	}
	levels, err := parseLoadtest(out)
	if err != nil {
		return serveSample{}, err
	}
	one, eight := levels[1], levels[8]
	if one == nil || eight == nil {
		return serveSample{}, fmt.Errorf("loadtest printed no row for 1 and 8 clients:\n%s", out)
	}
	return serveSample{Precision: p, P50One: one[3], P99One: one[5], P50Eight: eight[3], P99Eight: eight[5], RateEight: eight[2]}, nil
}

// parseLoadtest reads scripts/loadtest's table: by concurrency, the row's
// numbers after it (requests, errors, req/s, p50, p90, p99, max; ms). A
// level with errors is an error.
func parseLoadtest(out []byte) (map[int][]float64, error) {
	rows := map[int][]float64{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) != 8 {
			continue
		}
		c, err := strconv.Atoi(f[0])
		if err != nil {
			continue // the header
		}
		var v []float64
		for _, x := range f[1:] {
			y, err := strconv.ParseFloat(x, 64)
			if err != nil {
				break
			}
			v = append(v, y)
		}
		if len(v) != 7 {
			continue
		}
		if v[1] > 0 {
			return nil, fmt.Errorf("loadtest: %g of %g requests failed at %d clients", v[1], v[0], c)
		}
		rows[c] = v
	}
	return rows, nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// parseBench reads `go test -bench` output: for each line of benchmark
// name/LEVEL (with or without the -GOMAXPROCS suffix), the value before
// unit. Lines of other benchmarks, or without the unit, are skipped.
func parseBench(out []byte, name, unit string) map[string]float64 {
	got := map[string]float64{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		bench, level, ok := strings.Cut(f[0], "/")
		if !ok || bench != name {
			continue
		}
		if i := strings.LastIndexByte(level, '-'); i > 0 {
			if _, err := strconv.Atoi(level[i+1:]); err == nil {
				level = level[:i]
			}
		}
		for i := 2; i+1 < len(f); i++ {
			if f[i+1] == unit {
				if v, err := strconv.ParseFloat(f[i], 64); err == nil {
					got[level] = v
				}
				break
			}
		}
	}
	return got
}

// testVerdict reads `go test -v` output for test: "pass", "fail", "skip:
// REASON" (the first line the test logged), or "not run".
func testVerdict(out []byte, test string) string {
	var logged string // the test's first log line: a skip's reason
	running := false
	for line := range strings.Lines(string(out)) {
		t := strings.TrimSpace(line)
		switch {
		case t == "=== RUN   "+test:
			running = true
		case strings.HasPrefix(t, "=== "):
			running = false
		case strings.HasPrefix(t, "--- PASS: "+test+" "):
			return "pass"
		case strings.HasPrefix(t, "--- FAIL: "+test+" "):
			return "fail"
		case strings.HasPrefix(t, "--- SKIP: "+test+" "):
			if logged != "" {
				return "skip: " + logged
			}
			return "skip"
		case running && logged == "" && strings.HasPrefix(line, "    "):
			// "    file_test.go:17: message"
			logged = t
			if file, msg, ok := strings.Cut(t, ": "); ok && strings.Contains(file, "_test.go:") {
				logged = msg
			}
		}
	}
	return "not run"
}

// checks holds the figures against the targets; the AMX targets apply
// only where the CPU lists the tiles.
func checks(r *report) []check {
	var cs []check
	yes := func(b bool) *bool { return &b }
	at := func(name string) *measurement {
		for i := range r.Training {
			if strings.HasPrefix(r.Training[i].Name, name) {
				return &r.Training[i]
			}
		}
		return &measurement{}
	}
	hour, d400, d800 := at("hour"), at("d=400"), at("d=800")
	add := func(target string, got float64, limit float64, amxOnly bool) {
		c := check{Target: target, Got: fmt.Sprintf("%.3f s", got)}
		switch {
		case got == 0:
			c.Got, c.Why = "not measured", "-"
		case amxOnly && !r.hasAMX():
			c.Why = "AMX hosts' target"
		case r.Short:
			c.Why = "-short: a few iterations"
		default:
			c.Met = yes(got <= limit)
		}
		cs = append(cs, c)
	}
	add("hour preset, fp32: ≤ 0.3 s per iteration", hour.median("fp32"), 0.3, false)
	add("d=400, fp32: ≤ 0.6 s per iteration", d400.median("fp32"), 0.6, false)
	add("d=400, bf16 on AMX: ≤ 0.35 s per iteration", d400.median("bf16"), 0.35, true)
	add("d=800, bf16 on AMX: ≤ 1.2 s per iteration", d800.median("bf16"), 1.2, true)
	for _, p := range precisions {
		a, b, c := hour.median(p), d400.median(p), d800.median(p)
		dims := check{Target: "no dimension slower than a larger one, " + p, Got: fmt.Sprintf("%.3f ≤ %.3f ≤ %.3f s", a, b, c)}
		if r.Short {
			dims.Why = "-short: a few iterations"
		} else {
			dims.Met = yes(a <= b && b <= c)
		}
		cs = append(cs, dims)
	}
	// The better precision's median against a limit: what a user who
	// picks the faster one gets.
	best := func(target string, byPrec map[string][]float64, limit float64, unit, short string) check {
		c := check{Target: target, Got: "not measured", Why: "-"}
		b := 0.0
		for _, p := range precisions {
			if m := median(byPrec[p]); m > 0 && (b == 0 || m < b) {
				b = m
			}
		}
		if b > 0 {
			c.Got, c.Why = fmt.Sprintf("%.2f %s", b, unit), ""
			if r.Short {
				c.Why = short
			} else {
				c.Met = yes(b <= limit)
			}
		}
		return c
	}
	evals, p99 := map[string][]float64{}, map[string][]float64{}
	for _, x := range r.Eval.Samples {
		evals[x.Precision] = append(evals[x.Precision], x.Seconds)
	}
	for _, x := range r.Serve {
		p99[x.Precision] = append(p99[x.Precision], x.P99Eight)
	}
	cs = append(cs, best("test evaluation at d=400 (the command): ≤ 8 s", evals, 8, "s", "-short: a sample of the queries"),
		best("serving a d=400 model, p99 at 8 clients: ≤ 5 ms", p99, 5, "ms", "-short: a few requests"))
	for _, g := range []struct {
		name string
		v    map[string]float64
	}{{"GammaFeatures", r.Features}, {"GammaFeaturesGrad", r.FeaturesGrad}} {
		c := check{Target: g.name + " avx512: ≥ 4× pure Go"}
		if v, ok := g.v["avx512"]; ok && g.v["go"] > 0 {
			c.Got = fmt.Sprintf("%.0f / %.0f M values/s = %.1f×", v, g.v["go"], v/g.v["go"])
			c.Met = yes(v >= 4*g.v["go"])
		} else {
			c.Got, c.Why = "not measured", "no avx512 level here"
		}
		cs = append(cs, c)
	}
	amx := check{Target: "AMX tile kernel against its specification (TestAMXTile)", Got: r.AMXTile}
	if r.hasAMX() {
		amx.Met = yes(r.AMXTile == "pass")
	} else {
		amx.Why = "no AMX here"
	}
	return append(cs, amx)
}

func writeTable(w io.Writer, r *report) {
	fmt.Fprintf(w, "host: %s; CPUID %s; kernels: %s; %s, %d round(s), fp32 and bf16 alternated\n",
		r.Host, strings.Join(r.Flags, " "), r.Kernels, r.Date, r.Rounds)
	if r.Short {
		fmt.Fprintln(w, "-short: few iterations and a sample of the test queries; not figures to report")
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| measurement | fp32 | bf16 |")
	fmt.Fprintln(w, "|---|---|---|")
	each := func(m measurement, p string, f func(sample) string) string {
		var v []string
		for _, s := range m.Samples {
			if s.Precision == p {
				v = append(v, f(s))
			}
		}
		return strings.Join(v, ", ")
	}
	for _, m := range r.Training {
		it := func(s sample) string { return fmt.Sprintf("%.3f", s.Seconds) }
		cpu := func(s sample) string { return fmt.Sprintf("%.3f", s.CPUSeconds) }
		fmt.Fprintf(w, "| %s: s per iteration | %s | %s |\n", m.Name, each(m, "fp32", it), each(m, "bf16", it))
		fmt.Fprintf(w, "| %s: CPU-s per iteration | %s | %s |\n", m.Name, each(m, "fp32", cpu), each(m, "bf16", cpu))
	}
	cmd := func(s sample) string { return fmt.Sprintf("%.2f", s.Seconds) }
	own := func(s sample) string { return fmt.Sprintf("%.2f", s.Reported) }
	fmt.Fprintf(w, "| %s: the command, s | %s | %s |\n", r.Eval.Name, each(r.Eval, "fp32", cmd), each(r.Eval, "bf16", cmd))
	fmt.Fprintf(w, "| %s: as it reports itself, s | %s | %s |\n", r.Eval.Name, each(r.Eval, "fp32", own), each(r.Eval, "bf16", own))
	for _, row := range []struct {
		name string
		f    func(serveSample) float64
	}{
		{"serving d=400, 1 client: p50 ms", func(s serveSample) float64 { return s.P50One }},
		{"serving d=400, 1 client: p99 ms", func(s serveSample) float64 { return s.P99One }},
		{"serving d=400, 8 clients: p50 ms", func(s serveSample) float64 { return s.P50Eight }},
		{"serving d=400, 8 clients: p99 ms", func(s serveSample) float64 { return s.P99Eight }},
		{"serving d=400, 8 clients: requests/s", func(s serveSample) float64 { return s.RateEight }},
	} {
		cell := func(p string) string {
			var v []string
			for _, s := range r.Serve {
				if s.Precision == p {
					v = append(v, strconv.FormatFloat(row.f(s), 'f', 2, 64))
				}
			}
			return strings.Join(v, ", ")
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", row.name, cell("fp32"), cell("bf16"))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| target | measured | met |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, c := range r.Checks {
		met := c.Why
		if c.Met != nil {
			met = map[bool]string{true: "yes", false: "**no**"}[*c.Met]
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", c.Target, c.Got, met)
	}
}
