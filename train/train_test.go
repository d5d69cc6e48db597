package train

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/gammae/gammae/internal/cputime"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gammae/gammae/checkpoint"
	"github.com/gammae/gammae/dataset"
	"github.com/gammae/gammae/gamma"
	"github.com/gammae/gammae/kg"
	"github.com/gammae/gammae/sample"
)

// tinyDataset samples a small query set from the repository's tiny graph.
func tinyDataset(t *testing.T) *dataset.Dataset {
	t.Helper()
	k, _, err := kg.LoadTriples(filepath.Join("..", "testdata", "tiny"), kg.TripleOptions{KeepUnseen: true})
	if err != nil {
		t.Fatal(err)
	}
	sizes := sample.Sizes{Train: 40, NegTrain: 10, Eval: 5, MaxAnswers: 100, MaxTries: 200}
	opt := sample.Options{Seed: 3, Workers: 1, MaxAnswers: 100, MaxTries: 200}
	if opt.Train, err = sizes.Specs(kg.TrainSplit, DefaultStructures); err != nil {
		t.Fatal(err)
	}
	d, _, err := sample.Generate(context.Background(), k, opt)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func tinyConfig() Config {
	c, _ := Preset("small")
	c.Dim, c.Hidden, c.Layers, c.Batch, c.Negatives = 8, 16, 2, 16, 4
	c.Steps, c.CheckpointEvery, c.ValidEvery = 12, 4, 0
	c.UnionDropout = 0.1
	return c
}

func TestLossDecreases(t *testing.T) {
	d := tinyDataset(t)
	cfg := tinyConfig()
	cfg.Steps, cfg.LR = 60, 0.01
	var losses []float64
	sum, err := Run(context.Background(), cfg, d, Options{OnIteration: func(_ int, l float64) { losses = append(losses, l) }})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Iterations != 60 || len(losses) != 60 {
		t.Fatalf("ran %d iterations, logged %d", sum.Iterations, len(losses))
	}
	first, last := mean(losses[:10]), mean(losses[50:])
	if !(last < first) {
		t.Errorf("loss did not decrease: first 10 %.4f, last 10 %.4f", first, last)
	}
}

// A step whose gradient is not finite skips its update and training goes
// on (the next steps zero the gradients again); too many in a row stop it.
func TestNonFiniteGradientSkipsUpdate(t *testing.T) {
	d := tinyDataset(t)
	cfg := tinyConfig()
	curve := func(dir string, iterations int, fault func(step int) bool) ([]float64, error) {
		var losses []float64
		step := 0
		opts := Options{Dir: dir, MaxIterations: iterations, OnIteration: func(_ int, l float64) { losses = append(losses, l) },
			gradFault: func() string {
				step++
				if fault(step) {
					return "entity_embedding"
				}
				return ""
			}}
		_, err := Run(context.Background(), cfg, d, opts)
		return losses, err
	}
	want, err := curve("", 4, func(int) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	got, err := curve(dir, 4, func(step int) bool { return step == 5 }) // iteration 2's second step
	if err != nil {
		t.Fatal(err)
	}
	// Iteration 2's last step already starts from other parameters.
	if got[0] != want[0] || got[1] == want[1] || got[2] == want[2] || got[3] == want[3] {
		t.Errorf("losses with iteration 2's second update skipped %v, none skipped %v: want the first equal, the rest not", got, want)
	}
	st, err := loadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Skipped != 1 {
		t.Errorf("state records %d skipped updates, want 1", st.Skipped)
	}
	cfg.Steps = 40
	if _, err := curve("", 40, func(int) bool { return true }); !errors.Is(err, ErrNonFinite) {
		t.Errorf("every gradient non-finite: error %v, want ErrNonFinite", err)
	}
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// Checkpoints must not change a run: saving the sampler's and the
// optimiser's state leaves them as they were.
func TestCheckpointsKeepLossCurve(t *testing.T) {
	d := tinyDataset(t)
	cfg := tinyConfig()
	curve := func(dir string, every int) []float64 {
		t.Helper()
		c := cfg
		c.CheckpointEvery = every
		var losses []float64
		if _, err := Run(context.Background(), c, d, Options{Dir: dir, OnIteration: func(_ int, l float64) { losses = append(losses, l) }}); err != nil {
			t.Fatal(err)
		}
		return losses
	}
	want, got := curve("", 0), curve(t.TempDir(), 1)
	if !slices.Equal(got, want) {
		t.Fatalf("losses with a checkpoint every iteration %v, without checkpoints %v", got, want)
	}
}

// A run interrupted and resumed must follow the same loss curve as an
// uninterrupted one, through an lr drop and an optimiser reset.
func TestResumeIsExact(t *testing.T) {
	d := tinyDataset(t)
	hard := tinyConfig()
	hard.Loss, hard.Negatives, hard.HardNegatives, hard.HardIntersections = "shared", 40, 2, 1
	decay := tinyConfig()
	decay.EntityDecay = 5
	for name, cfg := range map[string]Config{"tiny": tinyConfig(), "hard negatives": hard, "entity decay": decay} {
		t.Run(name, func(t *testing.T) { testResumeIsExact(t, d, cfg) })
	}
}

func testResumeIsExact(t *testing.T, d *dataset.Dataset, cfg Config) {
	var straight []float64
	if _, err := Run(context.Background(), cfg, d, Options{Dir: t.TempDir(), OnIteration: func(_ int, l float64) { straight = append(straight, l) }}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var resumed []float64
	rec := func(_ int, l float64) { resumed = append(resumed, l) }
	if _, err := Run(context.Background(), cfg, d, Options{Dir: dir, MaxIterations: 5, OnIteration: rec}); err != nil {
		t.Fatal(err)
	}
	sum, err := Run(context.Background(), cfg, d, Options{Dir: dir, Resume: true, OnIteration: rec})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Iterations != cfg.Steps || len(resumed) != len(straight) {
		t.Fatalf("resumed run: %d iterations, %d losses; want %d", sum.Iterations, len(resumed), len(straight))
	}
	for i := range straight {
		if straight[i] != resumed[i] {
			t.Fatalf("iteration %d: loss %v resumed, %v straight", i+1, resumed[i], straight[i])
		}
	}
	for _, f := range []string{checkpoint.ModelFile, checkpoint.OptimizerFile, checkpoint.StateFile, checkpoint.ConfigFile, checkpoint.LogFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("run directory lacks %s: %v", f, err)
		}
	}
	m, meta, err := checkpoint.Open(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if meta == nil || m.Config().Dim != cfg.Dim {
		t.Errorf("reopened run: meta %v, dim %d", meta, m.Config().Dim)
	}
}

func TestDeterministic(t *testing.T) {
	d := tinyDataset(t)
	cfg := tinyConfig()
	run := func() []float64 {
		var l []float64
		if _, err := Run(context.Background(), cfg, d, Options{OnIteration: func(_ int, x float64) { l = append(l, x) }}); err != nil {
			t.Fatal(err)
		}
		return l
	}
	a, b := run(), run()
	for i := range a {
		if a[i] != b[i] || math.IsNaN(a[i]) {
			t.Fatalf("iteration %d: %v vs %v", i, a[i], b[i])
		}
	}
}

func TestInterruptCheckpoints(t *testing.T) {
	d := tinyDataset(t)
	cfg := tinyConfig()
	ctx, cancel := context.WithCancel(context.Background())
	dir := t.TempDir()
	sum, err := Run(ctx, cfg, d, Options{Dir: dir, OnIteration: func(it int, _ float64) {
		if it == 3 {
			cancel()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Interrupted || sum.Iterations != 3 {
		t.Fatalf("summary %+v, want interrupted after 3", sum)
	}
	st, err := loadState(dir)
	if err != nil || st.Iteration != 3 {
		t.Fatalf("state %+v, %v", st, err)
	}
}

func TestConfigValidate(t *testing.T) {
	good := tinyConfig()
	for name, mutate := range map[string]func(*Config){
		"dim":                 func(c *Config) { c.Dim = 0 },
		"lr":                  func(c *Config) { c.LR = 0 },
		"union-train":         func(c *Config) { c.UnionTrain = "test" },
		"dropout":             func(c *Config) { c.UnionDropout = 1 },
		"projection dropout":  func(c *Config) { c.ProjectionDropout = 1 },
		"root dropout":        func(c *Config) { c.ProjectionDropout, c.ProjectionDropoutRoot = 0, true },
		"steps":               func(c *Config) { c.Steps, c.Minutes = 0, 0 },
		"budgets":             func(c *Config) { c.Minutes, c.CPUMinutes = 1, 1 },
		"cpu-minutes":         func(c *Config) { c.CPUMinutes = math.NaN() },
		"loss":                func(c *Config) { c.Loss = "hinge" },
		"temperature":         func(c *Config) { c.LossTemperature = -1 },
		"average":             func(c *Config) { c.Average = -0.1 },
		"adam-beta2":          func(c *Config) { c.AdamBeta2 = 1 },
		"adam-eps":            func(c *Config) { c.AdamEps = math.Inf(1) },
		"exclude":             func(c *Config) { c.Loss, c.ExcludeAnswers = "softmax", true },
		"hard":                func(c *Config) { c.HardNegatives = -1 },
		"hard-all":            func(c *Config) { c.Loss, c.HardNegatives = "all", 2 },
		"hard-isect":          func(c *Config) { c.HardIntersections = -1 },
		"hard-isect-all":      func(c *Config) { c.Loss, c.HardIntersections = "all", 1 },
		"entity decay":        func(c *Config) { c.EntityDecay = -0.1 },
		"entity decay NaN":    func(c *Config) { c.EntityDecay = math.NaN() },
		"entity decay ≥ 1/lr": func(c *Config) { c.LR, c.EntityDecay = 0.01, 100 },
		"decay power NaN":     func(c *Config) { c.EntityDecay, c.EntityDecayPower = 0.1, math.NaN() },
		"decay power 5":       func(c *Config) { c.EntityDecay, c.EntityDecayPower = 0.1, 5 },
		"decay power alone":   func(c *Config) { c.EntityDecayPower = 0.5 },
		"weight decay":        func(c *Config) { c.WeightDecay = -0.1 },
		"weight decay ≥ 1/lr": func(c *Config) { c.LR, c.WeightDecay = 0.01, 100 },
	} {
		c := good
		mutate(&c)
		if c.Validate() == nil {
			t.Errorf("%s: invalid config accepted", name)
		}
	}
	if err := good.Validate(); err != nil {
		t.Errorf("good config rejected: %v", err)
	}
	if a := adam[float32](&good); a.Beta2 != 0.999 || a.Eps != 1e-8 {
		t.Errorf("default Adam %+v", a)
	}
	good.AdamBeta2, good.AdamEps = 0.98, 1e-6
	if a := adam[float32](&good); a.Beta2 != 0.98 || a.Eps != 1e-6 || a.LR != good.LR {
		t.Errorf("Adam %+v from --adam-beta2 0.98 --adam-eps 1e-6", a)
	}
}

// A resumed run with a time budget has what is left of it: a run that has
// already trained for longer than --minutes (or --cpu-minutes) stops at
// once.
func TestResumeKeepsTimeBudget(t *testing.T) {
	d := tinyDataset(t)
	for _, tc := range []struct {
		name, field string
		set         func(*Config)
	}{
		{"wall", "seconds", func(c *Config) { c.Minutes = 1 }},
		{"cpu", "cpu_seconds", func(c *Config) { c.CPUMinutes = 1 }},
		// Validations and checkpoints count too: a resumed run does not
		// get back the time they took.
		{"wall, all of it", "budget_seconds", func(c *Config) { c.Minutes = 1 }},
		{"cpu, all of it", "budget_cpu_seconds", func(c *Config) { c.CPUMinutes = 1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tinyConfig()
			tc.set(&cfg)
			dir := t.TempDir()
			if _, err := Run(context.Background(), cfg, d, Options{Dir: dir, MaxIterations: 2}); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, checkpoint.StateFile)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var st map[string]any
			if err := json.Unmarshal(b, &st); err != nil {
				t.Fatal(err)
			}
			if st["budget_seconds"].(float64) < st["seconds"].(float64) {
				t.Errorf("state: the budget's wall time %v is less than the iterations' %v", st["budget_seconds"], st["seconds"])
			}
			if !strings.HasPrefix(tc.field, "budget") {
				// A state from before the budget's own fields.
				delete(st, "budget_seconds")
				delete(st, "budget_cpu_seconds")
			}
			st[tc.field] = 61.0 // more than the minute
			if b, err = json.Marshal(st); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			sum, err := Run(context.Background(), cfg, d, Options{Dir: dir, Resume: true})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Ran != 0 || sum.Iterations != 2 {
				t.Errorf("resumed past its budget: ran %d, now at iteration %d; want 0 and 2", sum.Ran, sum.Iterations)
			}
		})
	}
}

// TestCPUBudget: a run fitted to a CPU-time budget lays its schedule out
// on CPU-seconds per iteration, ends when the process has used the
// budget, and records the CPU time it trained.
func TestCPUBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("trains for a CPU-second")
	}
	d := tinyDataset(t)
	cfg := tinyConfig()
	cfg.Steps, cfg.CPUMinutes, cfg.CheckpointEvery = 0, 1.0/60, 1000
	cpu0 := cputime.Process()
	if cpu0 == 0 {
		t.Skip("CPU time not reported here")
	}
	sum, err := Run(context.Background(), cfg, d, Options{Dir: t.TempDir(), refitMin: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	// The schedule, refitted every iteration, ends close to the budget.
	if used := cputime.Process() - cpu0; used < 700*time.Millisecond {
		t.Errorf("run used %v of CPU, want at least its 1 s budget", used)
	}
	if sum.Iterations == 0 || sum.CPUSeconds <= 0 || sum.CPUSeconds > 5 {
		t.Errorf("%d iterations in %.3g CPU-s; want some, within about the budget", sum.Iterations, sum.CPUSeconds)
	}
}

// A schedule whose every lr drop is past still saves its state (no
// non-finite "next drop" in the JSON) and resumes.
func TestCustomDropsCheckpoint(t *testing.T) {
	d := tinyDataset(t)
	cfg := tinyConfig()
	cfg.LRDrops = []float64{0.2, 0.4}
	dir := t.TempDir()
	if _, err := Run(context.Background(), cfg, d, Options{Dir: dir, MaxIterations: cfg.Steps / 2}); err != nil {
		t.Fatal(err)
	}
	sum, err := Run(context.Background(), cfg, d, Options{Dir: dir, Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Iterations != cfg.Steps {
		t.Errorf("resumed run ended at iteration %d, want %d", sum.Iterations, cfg.Steps)
	}
}

// TestTimeBudgetKeepsDrops: a run fitted to a time budget that slows down
// after its first fit (a busy machine, validations) still makes every lr
// drop inside the budget.
func TestTimeBudgetKeepsDrops(t *testing.T) {
	d, cfg, dir := threeSecondRun(t)
	start := time.Now()
	slow := func(int, float64) {
		if time.Since(start) > 600*time.Millisecond {
			time.Sleep(4 * time.Millisecond)
		}
	}
	if _, err := Run(context.Background(), cfg, d, Options{Dir: dir, OnIteration: slow, refitMin: time.Nanosecond}); err != nil {
		t.Fatal(err)
	}
	if st := readState(t, dir); st.Drops != 2 || st.LR != cfg.LR/25 {
		t.Errorf("after the budget: %d lr drops, lr %g; want 2 and %g", st.Drops, st.LR, cfg.LR/25)
	}
}

// TestResumedBudgetRefits: a budget run stopped while its schedule was
// fitted to a slow start goes on refitting when resumed, so the schedule
// grows to what the rest of the budget holds and the lr drops move with
// it, rather than ending at the first fit's iterations.
func TestResumedBudgetRefits(t *testing.T) {
	d, cfg, dir := threeSecondRun(t)
	slow := func(int, float64) { time.Sleep(20 * time.Millisecond) }
	if _, err := Run(context.Background(), cfg, d, Options{Dir: dir, OnIteration: slow, MaxIterations: 10}); err != nil {
		t.Fatal(err)
	}
	first := readState(t, dir)
	if first.Steps <= 0 || first.Steps > 400 {
		t.Fatalf("first invocation fitted %d iterations at 20 ms each; want about 150", first.Steps)
	}
	if _, err := Run(context.Background(), cfg, d, Options{Dir: dir, Resume: true, refitMin: time.Nanosecond}); err != nil {
		t.Fatal(err)
	}
	st := readState(t, dir)
	if st.Iteration <= 2*first.Steps {
		t.Errorf("resumed run ended at iteration %d; the first fit was %d, the faster rest of the budget holds many more", st.Iteration, first.Steps)
	}
	if st.Drops != 2 {
		t.Errorf("%d lr drops, want 2", st.Drops)
	}
}

// TestBudgetFitSkipsWarmUp: the first fit of a budget's schedule leaves
// the first iteration out, whose first touches of memory can take many
// times an iteration: fitted on it, the schedule would be a fraction of
// what the budget holds, and its first lr drop would come too early.
func TestBudgetFitSkipsWarmUp(t *testing.T) {
	d, cfg, dir := threeSecondRun(t)
	slowFirst := func(it int, _ float64) {
		if it == 1 {
			time.Sleep(300 * time.Millisecond)
		}
	}
	// Stopped before any refit (30 s apart by default): the first fit alone.
	if _, err := Run(context.Background(), cfg, d, Options{Dir: dir, OnIteration: slowFirst, MaxIterations: 10}); err != nil {
		t.Fatal(err)
	}
	// Counting the 300 ms would fit about 27 iterations of the 3 s; the
	// tiny model's iterations take a few milliseconds (the bound allows
	// 30 ms, for a busy CI machine).
	if st := readState(t, dir); st.Steps < 100 {
		t.Errorf("first fit: %d iterations in 3 s after a 300 ms first iteration; want the later iterations' rate (at least 100)", st.Steps)
	}
}

// threeSecondRun is the data, configuration (a 3-second budget, two lr
// drops) and directory of a budget run; it skips in -short mode.
func threeSecondRun(t *testing.T) (*dataset.Dataset, Config, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs for 3 seconds")
	}
	cfg := tinyConfig()
	cfg.Steps, cfg.Minutes, cfg.CheckpointEvery = 0, 0.05, 1000
	cfg.LRDrops = []float64{0.5, 0.85}
	return tinyDataset(t), cfg, t.TempDir()
}

func readState(t *testing.T, dir string) State {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, checkpoint.StateFile))
	if err != nil {
		t.Fatal(err)
	}
	var st State
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestContains checks the sampler's membership test against
// slices.BinarySearch on sorted lists of every length up to 40, for values
// below, between, on and above the elements.
func TestContains(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 9))
	for n := 0; n <= 40; n++ {
		a := make([]int32, n)
		for i := range a {
			a[i] = int32(r.IntN(100)) * 2 // even values: odd ones fall between
		}
		slices.Sort(a)
		a = slices.Compact(a)
		for x := int32(-3); x <= 203; x++ {
			_, want := slices.BinarySearch(a, x)
			if got := contains(a, x); got != want {
				t.Fatalf("contains(%v, %d) = %v, want %v", a, x, got, want)
			}
		}
	}
	if contains([]int32{-2147483648, 2147483647}, 2147483647) != true || contains([]int32{2147483647}, -2147483648) {
		t.Error("contains at the ends of int32")
	}
}

// TestAverage: --average keeps the mean of the parameters after each of
// the schedule's last iterations (here 3 and 4 of 4; iteration 3's from a
// run stopped there, training being deterministic) in average.safetensors.
func TestAverage(t *testing.T) {
	d := tinyDataset(t)
	cfg := tinyConfig()
	cfg.Steps, cfg.Average = 4, 0.5
	dir, dir3 := t.TempDir(), t.TempDir()
	if _, err := Run(context.Background(), cfg, d, Options{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), cfg, d, Options{Dir: dir3, MaxIterations: 3}); err != nil {
		t.Fatal(err)
	}
	load := func(dir, name string) *gamma.Model[float32] {
		m, _, err := checkpoint.LoadModel(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	avg, p4, p3 := load(dir, checkpoint.AverageFile), load(dir, checkpoint.ModelFile), load(dir3, checkpoint.ModelFile)
	differ := false
	for i, p := range avg.Params() {
		for j, v := range p.Data {
			a, b := p3.Params()[i].Data[j], p4.Params()[i].Data[j]
			if want := a + (b-a)*0.5; math.Abs(float64(v-want)) > 1e-6*(1+math.Abs(float64(want))) {
				t.Fatalf("%s[%d] = %g, want the mean of %g and %g", p.Name, j, v, a, b)
			}
			differ = differ || a != b
		}
	}
	if !differ {
		t.Error("iterations 3 and 4 have the same parameters: the test checks nothing")
	}
	cfg.Average = 1
	if err := cfg.Validate(); err == nil {
		t.Error("average 1 accepted")
	}
}

// TestEntityDecay: the decay shrinks the entity table, and it alone, by
// 1 − lr·W before each step: at 1 − lr·W = 0.001 the table falls to
// Adam's own few steps of size lr, far below its initial range, while the
// relation tables keep theirs.
func TestEntityDecay(t *testing.T) {
	d := tinyDataset(t)
	cfg := tinyConfig()
	cfg.Steps, cfg.LR = 100, 0.01 // no lr drop in the first iteration
	decayed := cfg
	decayed.EntityDecay = 99.9 // each step scales the table by 0.001
	plain, shrunk := largestAfterOne(t, d, cfg), largestAfterOne(t, d, decayed)
	// One iteration is at most three Adam steps of about lr each.
	if p, s := plain["entity_embedding"], shrunk["entity_embedding"]; p < 0.2 || s > 0.05 {
		t.Errorf("entity table's largest |value| %g without decay, %g with: want ≥ 0.2 and ≤ 0.05", p, s)
	}
	if p, s := plain["alpha_embedding"], shrunk["alpha_embedding"]; p == 0 || s < 0.5*p {
		t.Errorf("relation table's largest |value| %g without entity decay, %g with: the decay reached it", p, s)
	}
}

// largestAfterOne trains one iteration of cfg on d and returns the
// largest |value| of each parameter.
func largestAfterOne(t *testing.T, d *dataset.Dataset, cfg Config) map[string]float64 {
	t.Helper()
	dir := t.TempDir()
	if _, err := Run(context.Background(), cfg, d, Options{Dir: dir, MaxIterations: 1}); err != nil {
		t.Fatal(err)
	}
	m, _, err := checkpoint.LoadModel(filepath.Join(dir, checkpoint.ModelFile))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, p := range m.Params() {
		for _, v := range p.Data {
			out[p.Name] = max(out[p.Name], math.Abs(float64(v)))
		}
	}
	return out
}

// TestWeightDecay: the weight decay shrinks the relation tables and the
// nets' weights by 1 − lr·W before each step, and leaves the entity table
// and the biases alone.
func TestWeightDecay(t *testing.T) {
	d := tinyDataset(t)
	cfg := tinyConfig()
	cfg.Steps, cfg.LR = 100, 0.01
	decayed := cfg
	decayed.WeightDecay = 99.9 // each step scales the weights by 0.001
	plain, shrunk := largestAfterOne(t, d, cfg), largestAfterOne(t, d, decayed)
	for _, c := range []struct {
		name   string
		decays bool
	}{
		{"entity_embedding", false},
		{"alpha_embedding", true},
		{"beta_embedding", true},
		{"projection_net.layer1.weight", true},
		{"center_net.layer_alpha1.weight", true},
		{"projection_net.layer1.bias", false},
		{"center_net.layer_beta2.bias", false},
	} {
		p, s := plain[c.name], shrunk[c.name]
		if p == 0 {
			t.Fatalf("%s: no such parameter, or all zero", c.name)
		}
		// One iteration is at most three Adam steps of about lr each.
		if c.decays && !(s <= 0.05 && p > 2*s) || !c.decays && s < 0.5*p {
			t.Errorf("%s: largest |value| %g without decay, %g with; decays: %v", c.name, p, s, c.decays)
		}
	}
}

// TestCosineSchedule: the cosine schedule lowers the lr every iteration
// from LR towards 0, with no drops, and a resumed run continues it.
func TestCosineSchedule(t *testing.T) {
	d := tinyDataset(t)
	cfg := tinyConfig()
	cfg.LRSchedule = "cosine"
	dir := t.TempDir()
	if _, err := Run(context.Background(), cfg, d, Options{Dir: dir, MaxIterations: cfg.Steps / 2}); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), cfg, d, Options{Dir: dir, Resume: true}); err != nil {
		t.Fatal(err)
	}
	lrs := loggedLRs(t, dir)
	if len(lrs) != cfg.Steps {
		t.Fatalf("%d iterations logged, want %d", len(lrs), cfg.Steps)
	}
	for i, lr := range lrs {
		want := cfg.LR * 0.5 * (1 + math.Cos(math.Pi*float64(i)/float64(cfg.Steps)))
		if math.Abs(lr-want) > 1e-12*cfg.LR {
			t.Fatalf("iteration %d: lr %g, want %g (all: %v)", i+1, lr, want, lrs)
		}
	}
	cfg.LRDrops = []float64{0.5}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "belong to the step schedule") {
		t.Errorf("cosine with drops: %v", err)
	}
	cfg.LRDrops, cfg.LRSchedule = nil, "linear"
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "step or cosine") {
		t.Errorf("unknown schedule: %v", err)
	}
}

// loggedLRs is the lr of every iteration in a run's log.
func loggedLRs(t *testing.T, dir string) []float64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, checkpoint.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	var lrs []float64
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e struct {
			LR *float64 `json:"lr"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		if e.LR != nil {
			lrs = append(lrs, *e.LR)
		}
	}
	return lrs
}

// TestCosineProgress: a refit of the schedule keeps the cosine's progress
// where it stands and changes only its slope, so that it never goes back
// (a host that speeds up) nor jumps ahead (one that slows down).
func TestCosineProgress(t *testing.T) {
	st := State{Steps: 1000}
	for _, c := range []struct {
		it   int
		want float64
	}{{0, 0}, {250, 0.25}, {1000, 1}, {1200, 1}} {
		if got := st.Progress(c.it); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("unanchored, iteration %d: progress %v, want %v", c.it, got, c.want)
		}
	}
	st.Iteration = 400
	st.refit(2000, 0) // the host sped up: the same budget holds more
	if got := st.Progress(400); math.Abs(got-0.4) > 1e-15 {
		t.Errorf("after a refit to more iterations: progress %v at the refit, want 0.4 as before", got)
	}
	if got := st.Progress(1200); math.Abs(got-0.7) > 1e-15 {
		t.Errorf("after a refit to more iterations: progress %v halfway to the end, want 0.7", got)
	}
	st.Iteration = 1200
	st.refit(1300, 0) // it slowed down
	if got, want := st.Progress(1250), 0.85; math.Abs(got-want) > 1e-15 {
		t.Errorf("after a refit to fewer iterations: progress %v, want %v", got, want)
	}
	st.Iteration = 1300
	st.refit(1300, 0) // the end, with no budget left
	if got := st.Progress(1300); got != 1 {
		t.Errorf("at the end: progress %v, want 1", got)
	}
	st.refit(5000, 0) // budget left after all: the schedule stays ended
	if got := st.Progress(2000); got != 1 {
		t.Errorf("refitted past its end: progress %v, want 1", got)
	}
	if got := (&State{}).Progress(10); got != 0 {
		t.Errorf("before the schedule is laid out: progress %v, want 0", got)
	}
}

// TestCosineBudgetRefits: a cosine run fitted to a time budget on a slow
// start, whose refits then find room for many more iterations, lowers
// its lr every iteration to near 0 at the budget's end; refitted by
// the fraction of the new total alone, its lr rose again.
func TestCosineBudgetRefits(t *testing.T) {
	d, cfg, dir := threeSecondRun(t)
	cfg.LRDrops, cfg.LRSchedule = nil, "cosine"
	start := time.Now()
	slowStart := func(int, float64) {
		if time.Since(start) < 600*time.Millisecond {
			time.Sleep(4 * time.Millisecond)
		}
	}
	if _, err := Run(context.Background(), cfg, d, Options{Dir: dir, OnIteration: slowStart, refitMin: time.Nanosecond}); err != nil {
		t.Fatal(err)
	}
	lrs := loggedLRs(t, dir)
	if st := readState(t, dir); st.CosineIter == 0 {
		t.Fatalf("no refit in %d iterations", len(lrs))
	}
	for i := 1; i < len(lrs); i++ {
		if lrs[i] > lrs[i-1] {
			t.Fatalf("iteration %d: lr rose from %g to %g", i+1, lrs[i-1], lrs[i])
		}
	}
	if last := lrs[len(lrs)-1]; last > 0.1*cfg.LR {
		t.Errorf("lr at the budget's end %g, want near 0 (lr %g)", last, cfg.LR)
	}
}
