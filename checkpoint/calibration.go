package checkpoint

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"

	"github.com/gammae/gammae/calibrate"
)

// CalibrationFile is a run directory's calibration of its estimates.
const CalibrationFile = "calibration.json"

// Calibration is the logit shifts that make a model's estimated answer
// counts, Σ σ(logit + shift), match the answer counts of validation
// queries in the median, a shift per structure and a pooled one
// (package calibrate). It belongs to one model file at one iteration, and
// is used with that model only.
type Calibration struct {
	Model     string `json:"model"`     // the model file's base name, e.g. best.safetensors
	Iteration int64  `json:"iteration"` // the model file's training iteration
	calibrate.Shifts
	Split   string `json:"split"`   // the queries fitted on: valid
	Queries int    `json:"queries"` // how many
	// The fitted queries' median estimate/answers ratio and fraction of
	// estimates within a factor of two, before and after the shift.
	RatioBefore   float64 `json:"median_ratio_before"`
	RatioAfter    float64 `json:"median_ratio_after"`
	Within2Before float64 `json:"within_2x_before"`
	Within2After  float64 `json:"within_2x_after"`
}

// Validate reports a calibration that cannot be used.
func (c *Calibration) Validate() error {
	switch {
	case c.Model == "":
		return errors.New("no model file named")
	case !finite(c.Default):
		return fmt.Errorf("logit shift %v is not a number", c.Default)
	}
	for name, v := range c.Structures {
		if !finite(v) {
			return fmt.Errorf("logit shift %v of %s is not a number", v, name)
		}
	}
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// WriteCalibration writes dir/calibration.json atomically.
func WriteCalibration(dir string, c *Calibration) error {
	if err := c.Validate(); err != nil {
		return fmt.Errorf("calibration of %s: %v", dir, err)
	}
	return writeJSON(filepath.Join(dir, CalibrationFile), c)
}

// ReadCalibration reads dir/calibration.json; nil without an error when
// the run has none.
func ReadCalibration(dir string) (*Calibration, error) {
	p := filepath.Join(dir, CalibrationFile)
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var c Calibration
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s: %v", p, err)
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %v", p, err)
	}
	return &c, nil
}
