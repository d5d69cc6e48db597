package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gammae/gammae/checkpoint"
)

// The main pipeline on the repository's tiny graph: generate, train with
// validation, resume, evaluate, plot.
func TestTrainPipeline(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "tiny.gqd")
	runDir := filepath.Join(dir, "run")
	graph := filepath.Join("..", "..", "testdata", "tiny")
	small := []string{"--preset", "small", "--dim", "8", "--hidden", "16", "--batch", "16", "--negatives", "4"}
	steps := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"data", "generate", "--graph", graph, "--out", data, "--train-count", "30", "--neg-train-count", "8",
			"--eval-count", "5", "--max-tries", "300", "--quiet"}, 0, "wrote"},
		{append([]string{"train", "--data", data, "--out", runDir, "--steps", "6", "--valid-every", "3", "--valid-queries", "4", "--checkpoint-every", "2"}, small...), 0, "finished: 6 iterations"},
		{[]string{"train", "--data", data, "--out", runDir, "--resume", "--steps", "8"}, 0, "finished: 8 iterations (2 now"},
		{[]string{"eval", "--model", runDir, "--quiet"}, 0, "MRR"},
		{[]string{"plot", runDir}, 0, ""},
		{append([]string{"train", "--data", data, "--bench", "1"}, small...), 0, "s per iteration"},
		{append([]string{"train", "--data", data, "--out", filepath.Join(dir, "softmax"), "--steps", "2", "--loss", "softmax", "--loss-temperature", "2"}, small...), 0, "finished: 2 iterations"},
		{append([]string{"train", "--data", data, "--out", filepath.Join(dir, "adv"), "--steps", "2", "--loss", "adversarial", "--average", "0.5"}, small...), 0, "the mean of the last 1 iterations"},
		{[]string{"eval", "--model", filepath.Join(dir, "adv", "average.safetensors"), "--quiet"}, 0, "MRR"},
		{[]string{"eval", "--model", filepath.Join(dir, "adv"), "--quiet", "--precision", "bf16", "--union", "dnf"}, 0, "entity products in bfloat16"},
		{[]string{"eval", "--model", filepath.Join(dir, "adv"), "--quiet", "--precision", "fp16"}, 1, `precision must be fp32 or bf16, got "fp16"`},
		{append([]string{"train", "--data", data, "--out", filepath.Join(dir, "bf16"), "--steps", "2", "--precision", "bf16"}, small...), 0, "finished: 2 iterations"},
		{[]string{"train", "--data", data, "--out", filepath.Join(dir, "bf16"), "--resume", "--steps", "3"}, 0, "finished: 3 iterations (1 now"},
		{append([]string{"train", "--data", data, "--out", filepath.Join(dir, "q2b16"), "--model-kind", "q2b", "--precision", "bf16"}, small[:2]...), 1, "precision bf16: q2b trains in float32 products only"},
		{[]string{"train", "--data", data, "--out", runDir, "--average", "1"}, 1, "average must be a fraction in [0, 1), got 1"},
		{append([]string{"train", "--data", data, "--out", filepath.Join(dir, "all"), "--steps", "2", "--loss", "all"}, small...), 0, "finished: 2 iterations"},
		{append([]string{"train", "--data", data, "--out", filepath.Join(dir, "shared"), "--steps", "2", "--loss", "shared", "--negatives", "40"}, small...), 0, "finished: 2 iterations"},
		{append([]string{"train", "--data", data, "--out", filepath.Join(dir, "exclude"), "--steps", "2", "--loss", "shared", "--negatives", "40", "--exclude-answers", "--loss-sigmoid", "0.5"}, small...), 0, "finished: 2 iterations"},
		{[]string{"train", "--data", data, "--out", filepath.Join(dir, "exclude"), "--resume", "--steps", "3"}, 0, "finished: 3 iterations (1 now"},
		{[]string{"train", "--data", data, "--out", filepath.Join(dir, "fast-shared"), "--preset", "fast-shared", "--dim", "8", "--hidden", "16", "--batch", "16", "--negatives", "40", "--steps", "2"}, 0, "finished: 2 iterations"},
		{[]string{"train", "--data", data, "--out", filepath.Join(dir, "fast-smoothed"), "--preset", "fast-smoothed", "--dim", "8", "--hidden", "16", "--batch", "16", "--negatives", "40", "--steps", "2"}, 0, "finished: 2 iterations"},
		{[]string{"train", "--data", data, "--out", filepath.Join(dir, "unsmoothed"), "--preset", "fast-smoothed", "--label-smoothing", "0", "--query-weights", "answers", "--dim", "8", "--hidden", "16", "--batch", "16", "--negatives", "40", "--steps", "2"}, 0, "finished: 2 iterations"},
		// The help's preset table names what a preset sets beyond its columns.
		{[]string{"train", "--help"}, 0, "shared     0.001   512 2048       0     60  --label-smoothing 0.1 --query-weights uniform --confirm-queries 5000\n"},
		{[]string{"train", "--help"}, 0, "shared     0.001   512 2048       0     60  --label-smoothing 0.2 --query-weights uniform --hard-negatives 16 --entity-decay 0.05 --confirm-queries 5000\n"},
		{[]string{"train", "--data", data, "--out", filepath.Join(dir, "fast-hard"), "--preset", "fast-hard", "--dim", "8", "--hidden", "16", "--batch", "16", "--negatives", "40", "--steps", "2"}, 0, "hard negatives: 16 per negation query"},
		{[]string{"train", "--help"}, 0, "--entity-decay 0.15 --loss-sigmoid 0.3 --lr-schedule cosine --structure-weights 1p=5 --structures 1p,2p,3p,2i,3i,2in,3in,inp,pin,pni,2u-DNF,up-DNF,pi,ip"},
		// A dataset without pi and ip training queries trains on the rest, and says how to sample them.
		{[]string{"train", "--data", data, "--out", filepath.Join(dir, "fast-long"), "--preset", "fast-long", "--dim", "8", "--hidden", "16", "--batch", "16", "--negatives", "40", "--steps", "2"}, 0, "no train queries of structure pi in the dataset: skipped"},
		{[]string{"train", "--data", data, "--out", filepath.Join(dir, "gqe-shared"), "--preset", "fast-shared", "--model-kind", "gqe", "--steps", "2"}, 1, `loss "shared": the baselines train with sigmoid`},
		{[]string{"train", "--data", data, "--out", runDir, "--loss", "softmax", "--exclude-answers"}, 1, `exclude-answers is for the losses all and shared`},
		{[]string{"train", "--data", data, "--out", runDir, "--loss", "softmax", "--loss-sigmoid", "1"}, 1, `a loss sigmoid term is for the losses all and shared, not "softmax"`},
		{[]string{"train", "--data", data, "--out", runDir, "--loss", "shared", "--loss-sigmoid", "-1"}, 1, `loss sigmoid weight must be a finite number ≥ 0, got -1`},
		{append([]string{"train", "--data", data, "--out", filepath.Join(dir, "smooth"), "--steps", "2", "--loss", "shared", "--negatives", "40", "--label-smoothing", "0.1"}, small...), 0, "finished: 2 iterations"},
		{[]string{"train", "--data", data, "--out", runDir, "--loss", "softmax", "--label-smoothing", "0.1"}, 1, `label smoothing is for the losses all and shared, not "softmax"`},
		{[]string{"train", "--data", data, "--out", runDir, "--loss", "all", "--label-smoothing", "1"}, 1, `label smoothing must be a number in [0, 1), got 1`},
		{append([]string{"train", "--data", data, "--out", filepath.Join(dir, "hard"), "--steps", "2", "--loss", "shared", "--negatives", "40", "--hard-negatives", "2"}, small...), 0, "hard negatives: 2 per negation query"},
		{[]string{"train", "--data", data, "--out", runDir, "--hard-negatives", "-1"}, 1, `hard-negatives must be ≥ 0 (0: off), got -1`},
		{append([]string{"train", "--data", data, "--out", filepath.Join(dir, "hardi"), "--steps", "2", "--loss", "shared", "--negatives", "40", "--hard-intersections", "2"}, small...), 0, "hard negatives: 2 per intersection query"},
		{[]string{"train", "--data", data, "--out", runDir, "--hard-intersections", "-1"}, 1, `hard-intersections must be ≥ 0 (0: off), got -1`},
		{[]string{"train", "--data", data, "--out", runDir, "--loss", "all", "--hard-intersections", "1"}, 1, `hard-intersections draws negatives, and loss all has none`},
		{append([]string{"train", "--data", data, "--out", filepath.Join(dir, "uniform"), "--steps", "2", "--query-weights", "uniform"}, small...), 0, "finished: 2 iterations"},
		{append([]string{"train", "--data", data, "--out", filepath.Join(dir, "pdrop"), "--steps", "2", "--loss", "shared", "--negatives", "40", "--projection-dropout", "0.2"}, small...), 0, "finished: 2 iterations"},
		{[]string{"train", "--data", data, "--out", filepath.Join(dir, "pdrop"), "--resume", "--steps", "3"}, 0, "finished: 3 iterations (1 now"},
		{[]string{"eval", "--model", filepath.Join(dir, "pdrop"), "--quiet"}, 0, "MRR"},
		{[]string{"train", "--data", data, "--out", runDir, "--projection-dropout", "1"}, 1, "projection dropout must be in [0,1), got 1"},
		{append([]string{"train", "--data", data, "--out", filepath.Join(dir, "pdroot"), "--steps", "2", "--projection-dropout", "0.3", "--projection-dropout-root"}, small...), 0, "finished: 2 iterations"},
		{[]string{"train", "--data", data, "--out", runDir, "--projection-dropout-root"}, 1, "projection dropout at the roots only needs a projection dropout above 0"},
		{append([]string{"train", "--data", data, "--out", filepath.Join(dir, "edecay"), "--steps", "2", "--entity-decay", "0.1"}, small...), 0, "finished: 2 iterations"},
		{[]string{"train", "--data", data, "--out", runDir, "--entity-decay", "-1"}, 1, "entity decay must be ≥ 0 with lr·decay < 1 (0: off), got -1"},
		{append([]string{"train", "--data", data, "--out", filepath.Join(dir, "gqe-edecay"), "--model-kind", "gqe", "--entity-decay", "0.1"}, small[:2]...), 1, "entity decay 0.1: GammaE's only"},
		{append([]string{"train", "--data", data, "--out", filepath.Join(dir, "wdecay"), "--steps", "2", "--weight-decay", "0.1"}, small...), 0, "finished: 2 iterations"},
		{[]string{"train", "--data", data, "--out", runDir, "--weight-decay", "-1"}, 1, "weight decay must be ≥ 0 with lr·decay < 1 (0: off), got -1"},
		{append([]string{"train", "--data", data, "--out", filepath.Join(dir, "gqe-wdecay"), "--model-kind", "gqe", "--weight-decay", "0.1"}, small[:2]...), 1, "weight decay 0.1: GammaE's only"},
		{append([]string{"train", "--data", data, "--out", filepath.Join(dir, "gqe-pdrop"), "--model-kind", "gqe", "--projection-dropout", "0.1"}, small[:2]...), 1, "projection dropout 0.1: GammaE's only"},
		{[]string{"train", "--data", data, "--out", runDir, "--query-weights", "answer"}, 1, `query-weights must be answers (the reference's sqrt(1/(4+|answers|))) or uniform, got "answer"`},
		{append([]string{"train", "--data", data, "--out", filepath.Join(dir, "targets"), "--steps", "2", "--loss", "shared", "--negatives", "40", "--answer-targets", "--label-smoothing", "0.1"}, small...), 0, "finished: 2 iterations"},
		{[]string{"train", "--data", data, "--out", runDir, "--loss", "softmax", "--answer-targets"}, 1, `answer targets are for the losses all and shared, not "softmax"`},
		{[]string{"train", "--data", data, "--out", runDir, "--loss", "shared", "--answer-targets", "--exclude-answers"}, 1, "exclude-answers and answer-targets are two uses of a query's other answers"},
		{[]string{"train", "--data", data, "--out", runDir, "--loss", "focal"}, 1, "loss must be sigmoid, adversarial, softmax, all or shared, got \"focal\""},
		{append([]string{"train", "--data", data, "--out", filepath.Join(dir, "gqe-adversarial"), "--model-kind", "gqe", "--loss", "adversarial"}, small[:2]...), 1, `loss "adversarial": the baselines train with sigmoid`},
		{append([]string{"train", "--data", data, "--out", filepath.Join(dir, "cone-softmax"), "--model-kind", "cone", "--loss", "softmax", "--steps", "2"}, small...), 0, "loss softmax"},
		{[]string{"train", "--data", data, "--out", filepath.Join(dir, "cone-softmax"), "--resume", "--steps", "3"}, 0, "loss softmax"},
		{append([]string{"train", "--data", data, "--bench", "3", "--json", filepath.Join(dir, "bench.json")}, small...), 0, "median"},
		{[]string{"train", "--data", data, "--out", runDir, "--json", filepath.Join(dir, "x.json")}, 1, "--json needs --bench"},
		{[]string{"train", "--data", data}, 1, "--out is required"},
		{[]string{"train", "--data", data, "--out", runDir, "--lr", "-1"}, 1, "lr must be a finite positive number, got -1"},
		{[]string{"train", "--data", data, "--out", runDir, "--lr", "inf"}, 1, "lr must be a finite positive number, got +Inf"},
		{[]string{"train", "--data", data, "--out", runDir, "--threads", "-2"}, 1, "threads must be ≥ 0"},
		{[]string{"train", "--data", data, "--out", runDir, "--checkpoint-every", "-1"}, 1, "checkpoint-every must be ≥ 0"},
		{[]string{"train", "--data", data, "--out", runDir, "--confirm-queries", "-1"}, 1, "confirm-queries must be ≥ 0 (0: off), got -1"},
		{append([]string{"train", "--data", data, "--out", filepath.Join(dir, "confirm"), "--steps", "4", "--valid-every", "2", "--confirm-queries", "5"}, small...), 0, "finished: 4 iterations"},
		{append([]string{"train", "--data", data, "--out", filepath.Join(dir, "confirm-gqe"), "--model-kind", "gqe", "--steps", "4", "--valid-every", "2", "--confirm-queries", "5", "--dim", "8", "--batch", "16", "--negatives", "4"}, small[:2]...), 0, "finished: 4 iterations"},
		{[]string{"train", "--data", data, "--out", runDir, "--minutes", "-1", "--steps", "5"}, 1, "minutes must be a finite number ≥ 0"},
		{[]string{"train", "--data", data, "--out", runDir, "--minutes", "1", "--cpu-minutes", "1"}, 1, "two budgets"},
		{[]string{"train", "--data", data, "--out", runDir, "--cpu-minutes", "-1", "--steps", "5"}, 1, "cpu-minutes must be a finite number ≥ 0"},
		// The fast preset's lr drops give way to the cosine schedule.
		{[]string{"train", "--data", data, "--out", filepath.Join(dir, "cosine"), "--preset", "fast", "--dim", "8", "--hidden", "16", "--batch", "16", "--negatives", "4", "--steps", "2", "--lr-schedule", "cosine"}, 0, "finished: 2 iterations"},
		{[]string{"train", "--data", data, "--out", runDir, "--lr-schedule", "cosine", "--lr-drops", "0.5"}, 1, "belong to the step schedule"},
		{[]string{"train", "--data", data, "--out", runDir, "--structure-weights", "2in:3"}, 1, `--structure-weights: "2in:3": want structure=weight`},
		{[]string{"train", "--data", data, "--out", runDir, "--structure-weights", "pi=2"}, 1, "structure weight pi: not a training structure"},
		{append([]string{"train", "--data", data, "--out", filepath.Join(dir, "weighted"), "--steps", "2", "--structure-weights", "2in=3,2u=0.5"}, small...), 0, "finished: 2 iterations"},
		// A finished run is never overwritten without --force.
		{append([]string{"train", "--data", data, "--out", runDir, "--steps", "2"}, small...), 1, "holds a run (trained for 8 iterations): continue it with --resume, or start over with --force"},
		{[]string{"eval", "--model", runDir, "--quiet"}, 0, "MRR"},
	}
	for _, s := range steps {
		code, stdout, stderr := runCmd(t, s.args...)
		out := stdout + stderr
		if code != s.code || !strings.Contains(out, s.want) {
			t.Fatalf("gammae %s: exit %d, want %d with %q\n%s", strings.Join(s.args, " "), code, s.code, s.want, out)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "exclude", "config.json")); err != nil || !strings.Contains(string(b), `"exclude_answers": true`) || !strings.Contains(string(b), `"loss_sigmoid": 0.5`) {
		t.Errorf("the exclude run's config does not record the exclusion: %v\n%s", err, b)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "smooth", "config.json")); err != nil || !strings.Contains(string(b), `"label_smoothing": 0.1`) {
		t.Errorf("the smoothed run's config.json does not record its label smoothing (%v):\n%s", err, b)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "targets", "config.json")); err != nil || !strings.Contains(string(b), `"answer_targets": true`) {
		t.Errorf("the answer-targets run's config.json does not record them (%v):\n%s", err, b)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "uniform", "config.json")); err != nil || !strings.Contains(string(b), `"query_weights": "uniform"`) {
		t.Errorf("the uniform run's config.json does not record its query weights (%v):\n%s", err, b)
	}
	for run, want := range map[string][]string{
		"fast-smoothed": {`"preset": "fast-smoothed"`, `"label_smoothing": 0.1`, `"query_weights": "uniform"`},
		"unsmoothed":    {`"preset": "fast-smoothed"`, `"query_weights": "answers"`},
		"fast-hard":     {`"preset": "fast-hard"`, `"label_smoothing": 0.2`, `"hard_negatives": 16`, `"entity_decay": 0.05`},
		"pdrop":         {`"projection_dropout": 0.2`},
		"pdroot":        {`"projection_dropout": 0.3`, `"projection_dropout_root": true`},
	} {
		b, err := os.ReadFile(filepath.Join(dir, run, "config.json"))
		for _, w := range want {
			if err != nil || !strings.Contains(string(b), w) {
				t.Errorf("%s: config.json lacks %s (%v):\n%s", run, w, err, b)
			}
		}
		if run == "unsmoothed" && strings.Contains(string(b), "label_smoothing") {
			t.Errorf("--label-smoothing 0 did not override the preset's:\n%s", b)
		}
	}
	for _, run := range []string{"confirm", "confirm-gqe"} {
		if b, err := os.ReadFile(filepath.Join(dir, run, checkpoint.StateFile)); err != nil || !strings.Contains(string(b), `"confirmed": 4`) {
			t.Errorf("the %s run did not check its best checkpoint (%v):\n%s", run, err, b)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "bf16", "config.json")); err != nil || !strings.Contains(string(b), `"precision": "bf16"`) {
		t.Errorf("the bf16 run's config.json does not record its precision (%v):\n%s", err, b)
	}
	var br benchReport
	if b, err := os.ReadFile(filepath.Join(dir, "bench.json")); err != nil || json.Unmarshal(b, &br) != nil || br.Iterations != 3 || len(br.Each) != 3 || br.Seconds <= 0 || br.Dim != 8 {
		t.Errorf("bench.json: %+v (%v)", br, err)
	}
	if st, err := os.ReadFile(filepath.Join(runDir, checkpoint.StateFile)); err != nil || !strings.Contains(string(st), `"iteration": 8`) {
		t.Errorf("the refused train touched the run's state: %s (%v)", st, err)
	}
	// --force starts over.
	force := filepath.Join(dir, "force")
	for _, n := range []string{"4", "2"} {
		args := append([]string{"train", "--data", data, "--out", force, "--steps", n, "--force"}, small...)
		if code, stdout, stderr := runCmd(t, args...); code != 0 || !strings.Contains(stdout, "finished: "+n+" iterations") {
			t.Fatalf("gammae %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
		}
	}
	// The progress line gives the rate in queries too (3 steps × batch 16
	// per iteration).
	if code, stdout, stderr := runCmd(t, append([]string{"train", "--data", data, "--out", filepath.Join(dir, "run2"), "--steps", "2"}, small...)...); code != 0 || !strings.Contains(stdout+stderr, " queries/s)") {
		t.Errorf("train: exit %d, no rate in queries/s\n%s%s", code, stdout, stderr)
	}
	// A run of a loss whose σ(logit) is a probability ends calibrated
	// (gammae calibrate); a softmax-family run does not.
	for _, f := range []string{checkpoint.ModelFile, checkpoint.BestFile, checkpoint.StateFile, checkpoint.LogFile, "curves.svg", checkpoint.CalibrationFile} {
		if _, err := os.Stat(filepath.Join(runDir, f)); err != nil {
			t.Errorf("run directory lacks %s", f)
		}
	}
	if c, err := checkpoint.ReadCalibration(runDir); err != nil || c == nil || c.Model != checkpoint.BestFile || c.Queries == 0 {
		t.Errorf("calibration %+v, %v; want one of %s", c, err, checkpoint.BestFile)
	}
	if _, err := os.Stat(filepath.Join(dir, "softmax", checkpoint.CalibrationFile)); err == nil {
		t.Error("a softmax run was calibrated")
	}
	log, _ := os.ReadFile(filepath.Join(runDir, checkpoint.LogFile))
	if !strings.Contains(string(log), "valid_mrr") {
		t.Errorf("log.jsonl has no validation lines:\n%s", log)
	}
}
