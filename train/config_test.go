package train

import (
	"math"
	"reflect"
	"slices"
	"testing"
)

func TestDropAt(t *testing.T) {
	ref := Config{}
	custom := Config{LRDrops: []float64{0.15, 0.85}}
	for _, tc := range []struct {
		name        string
		c           Config
		steps, done int
		want        float64
	}{
		{"reference first", ref, 1000, 0, 500},
		{"reference second", ref, 1000, 1, 750},
		{"reference third", ref, 1000, 2, 1125},
		{"reference odd steps", ref, 1001, 0, 500},
		{"custom first", custom, 4000, 0, 600},
		{"custom second", custom, 4000, 1, 3400},
		{"custom exhausted", custom, 4000, 2, math.MaxFloat64},
	} {
		if got := tc.c.DropAt(tc.steps, tc.done); got != tc.want {
			t.Errorf("%s: DropAt(%d, %d) = %g, want %g", tc.name, tc.steps, tc.done, got, tc.want)
		}
	}
}

func TestValidateLRDrops(t *testing.T) {
	for _, tc := range []struct {
		drops []float64
		ok    bool
	}{
		{nil, true},
		{[]float64{0.5}, true},
		{[]float64{0.2, 0.9}, true},
		{[]float64{0}, false},
		{[]float64{1.5}, false},
		{[]float64{0.6, 0.4}, false},
	} {
		c, _ := Preset("small")
		c.LRDrops = tc.drops
		if err := c.Validate(); (err == nil) != tc.ok {
			t.Errorf("LRDrops %v: Validate() = %v, want ok=%v", tc.drops, err, tc.ok)
		}
	}
}

// TestPresets: every preset is valid; the fast preset is the hour preset
// with the softmax loss, fast-shared the same with the shared loss over
// 2,048 entities, and fast-smoothed fast-shared with label smoothing and
// uniform query weights, nothing else.
func TestPresets(t *testing.T) {
	for name := range Presets {
		c, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("preset %s: %v", name, err)
		}
	}
	hour, _ := Preset("fb15k-237-hour")
	fast, _ := Preset("fast")
	if fast.Loss != "softmax" || hour.Loss != "" {
		t.Errorf("losses: fast %q, hour %q", fast.Loss, hour.Loss)
	}
	fast.Loss, fast.Preset, hour.Preset = "", "", ""
	if !reflect.DeepEqual(fast, hour) {
		t.Errorf("fast differs from the hour preset beyond the loss:\n%+v\n%+v", fast, hour)
	}
	shared, _ := Preset("fast-shared")
	if shared.Loss != "shared" || shared.Negatives != 2048 {
		t.Errorf("fast-shared: loss %q, %d negatives", shared.Loss, shared.Negatives)
	}
	shared.Loss, shared.Negatives, shared.Preset = "", hour.Negatives, ""
	if !reflect.DeepEqual(shared, hour) {
		t.Errorf("fast-shared differs from the hour preset beyond the loss:\n%+v\n%+v", shared, hour)
	}
	shared, _ = Preset("fast-shared")
	smoothed, _ := Preset("fast-smoothed")
	if smoothed.LabelSmoothing != 0.1 || smoothed.QueryWeights != "uniform" {
		t.Errorf("fast-smoothed: label smoothing %g, query weights %q", smoothed.LabelSmoothing, smoothed.QueryWeights)
	}
	smoothed.LabelSmoothing, smoothed.QueryWeights, smoothed.Preset, shared.Preset = 0, "", "", ""
	if !reflect.DeepEqual(smoothed, shared) {
		t.Errorf("fast-smoothed differs from fast-shared beyond the smoothing and weights:\n%+v\n%+v", smoothed, shared)
	}
	smoothed, _ = Preset("fast-smoothed")
	hard, _ := Preset("fast-hard")
	if hard.HardNegatives != 16 || hard.LabelSmoothing != 0.2 || hard.EntityDecay != 0.05 {
		t.Errorf("fast-hard: %d hard negatives, label smoothing %g, entity decay %g; want 16, 0.2, 0.05", hard.HardNegatives, hard.LabelSmoothing, hard.EntityDecay)
	}
	hard.HardNegatives, hard.LabelSmoothing, hard.EntityDecay, hard.Preset, smoothed.Preset = 0, smoothed.LabelSmoothing, 0, "", ""
	if !reflect.DeepEqual(hard, smoothed) {
		t.Errorf("fast-hard differs from fast-smoothed beyond the hard negatives, smoothing and entity decay:\n%+v\n%+v", hard, smoothed)
	}
	hard, _ = Preset("fast-hard")
	long, _ := Preset("fast-long")
	if err := long.Validate(); err != nil {
		t.Errorf("fast-long: %v", err)
	}
	wantStructures := append(slices.Clone(DefaultStructures), "pi", "ip")
	if long.Hidden != 800 || long.EntityDecay != 0.15 || long.LossSigmoid != 0.3 || long.Minutes != 150 || long.LRSchedule != "cosine" ||
		len(long.LRDrops) != 0 || !reflect.DeepEqual(long.StructureWeights, map[string]float64{"1p": 5}) || !slices.Equal(long.Structures, wantStructures) {
		t.Errorf("fast-long: %+v", long)
	}
	long.Hidden, long.EntityDecay, long.LossSigmoid, long.Minutes, long.LRSchedule, long.LRDrops = hard.Hidden, hard.EntityDecay, 0, hard.Minutes, "", hard.LRDrops
	long.StructureWeights, long.Structures, long.Preset, hard.Preset = nil, hard.Structures, "", ""
	if !reflect.DeepEqual(long, hard) {
		t.Errorf("fast-long differs from fast-hard beyond its listed fields:\n%+v\n%+v", long, hard)
	}
}

// TestCalibrated: the losses whose σ(logit) is a probability.
func TestCalibrated(t *testing.T) {
	for _, c := range []struct {
		loss    string
		sigmoid float64
		want    bool
	}{
		{"", 0, true}, {"sigmoid", 0, true}, {"adversarial", 0, true},
		{"softmax", 0, false}, {"all", 0, false}, {"shared", 0, false},
		{"all", 0.5, true}, {"shared", 1, true},
	} {
		cfg := Config{Loss: c.loss, LossSigmoid: c.sigmoid}
		if got := cfg.Calibrated(); got != c.want {
			t.Errorf("loss %q, sigmoid %g: calibrated %v, want %v", c.loss, c.sigmoid, got, c.want)
		}
	}
}
