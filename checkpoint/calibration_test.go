package checkpoint

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gammae/gammae/calibrate"
)

func TestCalibrationFile(t *testing.T) {
	dir := t.TempDir()
	if c, err := ReadCalibration(dir); c != nil || err != nil {
		t.Fatalf("a run without calibration: %+v, %v; want nil, nil", c, err)
	}
	want := &Calibration{Model: BestFile, Iteration: 9000, Split: "valid", Queries: 14000,
		Shifts:      calibrate.Shifts{Default: -3.25, Structures: map[string]float64{"1p": -4, "2u-DNF": -1.5}},
		RatioBefore: 14.3, RatioAfter: 1, Within2Before: 0.05, Within2After: 0.4}
	if err := WriteCalibration(dir, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCalibration(dir)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("read back %+v, %v; want %+v", got, err, want)
	}
	b, _ := os.ReadFile(filepath.Join(dir, CalibrationFile))
	if !strings.Contains(string(b), `"logit_shift": -3.25`) || !strings.Contains(string(b), `"2u-DNF": -1.5`) {
		t.Errorf("calibration.json:\n%s", b)
	}
	for _, c := range []struct {
		name string
		cal  Calibration
		want string
	}{
		{"no model", Calibration{}, "no model file named"},
		{"NaN", Calibration{Model: BestFile, Shifts: calibrate.Shifts{Default: math.NaN()}}, "not a number"},
		{"infinite structure", Calibration{Model: BestFile, Shifts: calibrate.Shifts{Structures: map[string]float64{"3i": math.Inf(-1)}}}, "of 3i is not a number"},
	} {
		if err := WriteCalibration(dir, &c.cal); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
	for _, c := range []struct{ name, text, want string }{
		{"not JSON", "{", CalibrationFile},
		{"a shift of the wrong type", `{"model": "best.safetensors", "logit_shift": "x"}`, "logit_shift"},
		{"no model", `{"logit_shift": 1}`, "no model file named"},
	} {
		if err := os.WriteFile(filepath.Join(dir, CalibrationFile), []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadCalibration(dir); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), CalibrationFile) {
			t.Errorf("%s: %v, want an error naming the file and %q", c.name, err, c.want)
		}
	}
}

// FuzzReadCalibration: any file content gives a usable calibration or an
// error, never a panic.
func FuzzReadCalibration(f *testing.F) {
	f.Add([]byte(`{"model": "best.safetensors", "iteration": 3, "logit_shift": -3.2, "structure_shifts": {"1p": -4}}`))
	f.Add([]byte(`{"model": "", "logit_shift": 1e400}`))
	f.Add([]byte(`null`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, CalibrationFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := ReadCalibration(dir)
		if err != nil {
			return
		}
		if c == nil || c.Validate() != nil {
			t.Fatalf("accepted %q as %+v", b, c)
		}
	})
}
