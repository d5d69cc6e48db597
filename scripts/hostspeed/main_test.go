package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const benchOut = `goos: linux
goarch: amd64
pkg: github.com/gammae/gammae/internal/kernel
cpu: AMD EPYC
BenchmarkGammaFeatures/go-2         	       2	 580000000 ns/op	        23.10 Mvalues/cpu-s	        23.00 Mvalues/s
BenchmarkGammaFeatures/avx2-2       	      10	 100000000 ns/op	       238.0 Mvalues/cpu-s	       240.0 Mvalues/s
BenchmarkGammaFeatures/avx512-2     	      20	  50000000 ns/op	       420.0 Mvalues/cpu-s	       416.0 Mvalues/s
BenchmarkGammaFeaturesGrad/go       	       2	         0 ns/op	        52.00 Mvalues/s
BenchmarkGammaFeaturesGrad/avx512-2 	      20	         0 ns/op	      1079 Mvalues/s	      1090 Mvalues/cpu-s
BenchmarkGemmBF16/avx512/bf16-2     	       5	         0 ns/op	       329.0 GFLOP/s
PASS
`

func TestParseBench(t *testing.T) {
	for _, tc := range []struct {
		name, unit string
		want       map[string]float64
	}{
		{"BenchmarkGammaFeatures", "Mvalues/s", map[string]float64{"go": 23, "avx2": 240, "avx512": 416}},
		{"BenchmarkGammaFeatures", "Mvalues/cpu-s", map[string]float64{"go": 23.1, "avx2": 238, "avx512": 420}},
		{"BenchmarkGammaFeaturesGrad", "Mvalues/s", map[string]float64{"go": 52, "avx512": 1079}},
		{"BenchmarkGemmBF16", "GFLOP/s", map[string]float64{"avx512/bf16": 329}},
		{"BenchmarkNone", "Mvalues/s", map[string]float64{}},
	} {
		if got := parseBench([]byte(benchOut), tc.name, tc.unit); !equalMaps(got, tc.want) {
			t.Errorf("parseBench(%s, %s) = %v, want %v", tc.name, tc.unit, got, tc.want)
		}
	}
}

func equalMaps(a, b map[string]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestTestVerdict(t *testing.T) {
	for _, tc := range []struct{ out, want string }{
		{"=== RUN   TestAMXTile\n--- PASS: TestAMXTile (0.01s)\nPASS\n", "pass"},
		{"=== RUN   TestAMXTile\n    amx_amd64_test.go:30: kb=1: C[0][0] = 1, specification 2\n--- FAIL: TestAMXTile (0.00s)\nFAIL\n", "fail"},
		{"=== RUN   TestAMXTile\n    amx_amd64_test.go:17: no AMX tiles on this CPU (or the OS refused them): x\n--- SKIP: TestAMXTile (0.00s)\nPASS\n", "skip: no AMX tiles on this CPU (or the OS refused them): x"},
		{"=== RUN   TestOther\n    a_test.go:3: other\n=== RUN   TestAMXTile\n--- SKIP: TestAMXTile (0.00s)\n", "skip"},
		{"=== RUN   TestAMXTile\n--- SKIP: TestAMXTile (0.00s)\nPASS\n", "skip"},
		{"--- PASS: TestAMXTileX (0.00s)\n", "not run"},
		{"testing: warning: no tests to run\nPASS\n", "not run"},
	} {
		if got := testVerdict([]byte(tc.out), "TestAMXTile"); got != tc.want {
			t.Errorf("testVerdict(%q) = %q, want %q", tc.out, got, tc.want)
		}
	}
}

func TestParseLoadtest(t *testing.T) {
	rows, err := parseLoadtest([]byte(loadtestOut))
	if err != nil || len(rows) != 2 || !slices.Equal(rows[8], []float64{5000, 0, 2818, 2.73, 3.9, 5.41, 9.2}) {
		t.Errorf("parseLoadtest = %v, %v", rows, err)
	}
	bad := strings.Replace(loadtestOut, "5000       0    2818.0", "5000      12    2818.0", 1)
	if _, err := parseLoadtest([]byte(bad)); err == nil || !strings.Contains(err.Error(), "12 of 5000 requests failed at 8 clients") {
		t.Errorf("parseLoadtest of a level with errors: %v", err)
	}
}

func FuzzParsers(f *testing.F) {
	f.Add([]byte(benchOut))
	f.Add([]byte("BenchmarkGammaFeatures/-2 x y Mvalues/s\nBenchmarkGammaFeatures/avx512-x 1 NaN Mvalues/s\n"))
	f.Add([]byte(loadtestOut))
	f.Fuzz(func(t *testing.T, b []byte) {
		parseBench(b, "BenchmarkGammaFeatures", "Mvalues/s")
		testVerdict(b, "TestAMXTile")
		parseLoadtest(b)
	})
}

// fake stands in for gammae and go: bench reports whose seconds grow with
// the model and are lower in bf16, an evaluation report, the kernel
// benchmarks above and a skipped tile test. It records each timed run.
type fake struct {
	calls   []string // "CASE PRECISION" of each bench, eval and loadtest, in order
	serving string   // the precision of the server running, or ""
}

const loadtestOut = `target http://127.0.0.1:40123/v1/query, k=10, at most 5000 requests or 15s per level
concurrency  requests  errors     req/s    p50 ms    p90 ms    p99 ms    max ms
          1      5000       0     478.2      2.02      2.40      2.91      7.10
          8      5000       0    2818.0      2.73      3.90      5.41      9.20
`

func (f *fake) start(_ context.Context, marker, name string, args ...string) (string, func(), error) {
	if f.serving != "" {
		return "", nil, fmt.Errorf("a second server while %s runs", f.serving)
	}
	if args[0] != "serve" || marker != "listening on " {
		return "", nil, fmt.Errorf("start %s %v", name, args)
	}
	f.serving = args[slices.Index(args, "--precision")+1]
	return "gammae serve: listening on http://127.0.0.1:40123/ (Ctrl-C to stop)", func() { f.serving = "" }, nil
}

func (f *fake) run(_ context.Context, env []string, name string, args ...string) ([]byte, error) {
	if name == "go" {
		if !slices.Contains(env, "GOEXPERIMENT=simd") {
			return nil, fmt.Errorf("go %v without GOEXPERIMENT=simd", args)
		}
		if slices.Contains(args, "-bench") {
			return []byte(benchOut), nil
		}
		return []byte("=== RUN   TestAMXTile\n    amx_amd64_test.go:17: no AMX tiles on this CPU\n--- SKIP: TestAMXTile (0.00s)\nPASS\n"), nil
	}
	if filepath.Base(name) == "loadtest" {
		if !slices.Contains(args, "http://127.0.0.1:40123/") {
			return nil, fmt.Errorf("loadtest %v: not the server's address", args)
		}
		f.calls = append(f.calls, "loadtest "+f.serving)
		return []byte(loadtestOut), nil
	}
	opt := func(k string) string {
		if i := slices.Index(args, k); i >= 0 && i+1 < len(args) {
			return args[i+1]
		}
		return ""
	}
	prec, path := opt("--precision"), opt("--json")
	speed := map[string]float64{"fp32": 1, "bf16": 0.5}[prec]
	switch {
	case args[0] == "train" && opt("--bench") != "":
		secs := 0.2
		switch {
		case opt("--dim") == "400":
			secs = 0.5
		case opt("--preset") == "fb15k-237":
			secs = 2.3
		}
		f.calls = append(f.calls, fmt.Sprintf("%g %s", secs, prec))
		return nil, writeFake(path, map[string]any{"seconds_per_iteration": secs * speed, "cpu_seconds_per_iteration": 2 * secs * speed,
			"median_seconds": secs * speed, "steal": -1, "kernels": "avx512, bf16 products: AVX512-BF16"})
	case args[0] == "train":
		return nil, os.MkdirAll(opt("--out"), 0o755)
	case args[0] == "eval":
		f.calls = append(f.calls, "eval "+prec)
		return nil, writeFake(path, map[string]any{"queries": 87801, "seconds": 12 * speed})
	}
	return nil, fmt.Errorf("fake: unexpected %s %v", name, args)
}

func writeFake(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// wantLines fails t for each of lines that out lacks.
func wantLines(t *testing.T, out string, lines ...string) {
	t.Helper()
	for _, s := range lines {
		if !strings.Contains(out, s) {
			t.Errorf("table lacks %q:\n%s", s, out)
		}
	}
}

// runFake runs the command on an empty dataset file with the fakes, and
// returns them and its standard output.
func runFake(t *testing.T, args ...string) (*fake, string) {
	t.Helper()
	dir := t.TempDir()
	data := filepath.Join(dir, "fb237.gqd")
	if err := os.WriteFile(data, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	f := new(fake)
	var stdout, stderr strings.Builder
	args = append([]string{"-data", data, "-gammae", "gammae", "-work", filepath.Join(dir, "work")}, args...)
	if err := run(context.Background(), args, &stdout, &stderr, f.run, f.start); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	return f, stdout.String()
}

func TestRun(t *testing.T) {
	defer func(f func() (string, []string)) { readHost = f }(readHost)
	readHost = func() (string, []string) {
		return "AMD EPYC (family 26 model 2)", []string{"avx2", "fma", "avx512f", "avx512_bf16"}
	}
	jsonPath := filepath.Join(t.TempDir(), "out.json")
	f, out := runFake(t, "-rounds", "2", "-json", jsonPath)
	// Each round alternates the precisions, the second in the other order.
	want := []string{"0.2 fp32", "0.2 bf16", "0.5 fp32", "0.5 bf16", "2.3 fp32", "2.3 bf16", "eval fp32", "eval bf16", "loadtest fp32", "loadtest bf16",
		"0.2 bf16", "0.2 fp32", "0.5 bf16", "0.5 fp32", "2.3 bf16", "2.3 fp32", "eval bf16", "eval fp32", "loadtest bf16", "loadtest fp32"}
	if !slices.Equal(f.calls, want) {
		t.Errorf("runs %q\nwant %q", f.calls, want)
	}
	wantLines(t, out,
		"| d=400 (h=800): s per iteration | 0.500, 0.500 | 0.250, 0.250 |",
		"| test evaluation, d=400: as it reports itself, s | 12.00, 12.00 | 6.00, 6.00 |",
		"| hour preset, fp32: ≤ 0.3 s per iteration | 0.200 s | yes |",
		"| d=400, bf16 on AMX: ≤ 0.35 s per iteration | 0.250 s | AMX hosts' target |",
		"| GammaFeatures avx512: ≥ 4× pure Go | 416 / 23 M values/s = 18.1× | yes |",
		"| AMX tile kernel against its specification (TestAMXTile) | skip: no AMX tiles on this CPU | no AMX here |",
		"| no dimension slower than a larger one, bf16 | 0.100 ≤ 0.250 ≤ 1.150 s | yes |",
		"| serving d=400, 8 clients: p99 ms | 5.41, 5.41 | 5.41, 5.41 |",
		"| serving a d=400 model, p99 at 8 clients: ≤ 5 ms | 5.41 ms | **no** |",
		"host: AMD EPYC (family 26 model 2); CPUID avx2 fma avx512f avx512_bf16; kernels: avx512, bf16 products: AVX512-BF16;",
	)
	var r report
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Training) != 3 || len(r.Training[2].Samples) != 4 || r.Eval.median("bf16") <= 0 || r.Features["avx512"] != 416 || len(r.Serve) != 4 || r.Serve[0].RateEight != 2818 {
		t.Errorf("JSON report incomplete: %+v", r)
	}
}

// TestRunShort: -short times fewer iterations and judges no target that
// needs the full figures, only the kernels' ratios.
func TestRunShort(t *testing.T) {
	_, out := runFake(t, "-rounds", "1", "-short")
	wantLines(t, out,
		"| hour preset, fp32: ≤ 0.3 s per iteration | 0.200 s | -short: a few iterations |",
		"s | -short: a sample of the queries |",
		"| serving a d=400 model, p99 at 8 clients: ≤ 5 ms | 5.41 ms | -short: a few requests |",
		"| GammaFeatures avx512: ≥ 4× pure Go | 416 / 23 M values/s = 18.1× | yes |",
	)
}

func TestRunBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "-data is required"},
		{[]string{"-data", "x.gqd", "-rounds", "0"}, "-rounds must be 1–20"},
		{[]string{"-data", filepath.Join(t.TempDir(), "missing.gqd")}, "missing.gqd"},
		{[]string{"-data", "x", "extra"}, `unexpected argument "extra"`},
	} {
		var f fake
		err := run(context.Background(), tc.args, new(strings.Builder), new(strings.Builder), f.run, f.start)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run(%q) = %v, want an error saying %q", tc.args, err, tc.want)
		}
	}
}
