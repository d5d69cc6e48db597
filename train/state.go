package train

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gammae/gammae/checkpoint"
	"github.com/gammae/gammae/gamma"
	"github.com/gammae/gammae/internal/kernel"
	"github.com/gammae/gammae/optim"
	"github.com/gammae/gammae/safetensors"
)

// State is a run's state.json: everything besides the parameters and the
// optimiser moments that a resumed run needs to continue exactly.
type State struct {
	Iteration int         `json:"iteration"` // iterations completed
	Steps     int         `json:"steps"`     // iterations the schedule is laid out for
	LR        float64     `json:"lr"`
	NextDrop  float64     `json:"next_drop"` // iteration of the next lr drop
	Drops     int         `json:"drops"`     // lr drops so far
	RNG       []byte      `json:"rng"`       // PCG state of the batch sampler
	Path      StreamState `json:"path"`
	Other     StreamState `json:"other"`
	BestMRR   float64     `json:"best_mrr"`
	BestIter  int         `json:"best_iteration"`
	// Confirmed is the iteration at which the best checkpoint was last
	// checked on the larger sample (Config.ConfirmQueries).
	Confirmed int     `json:"confirmed,omitempty"`
	Seconds   float64 `json:"seconds"` // training time so far
	// CPUSeconds is the process's CPU time (all threads) in iterations so
	// far.
	CPUSeconds float64 `json:"cpu_seconds,omitempty"`
	// BudgetSeconds and BudgetCPU are the wall and CPU time the run's
	// invocations spent from their first iteration on, validations and
	// checkpoints included: what a time budget counts, so what a resumed
	// run has no more of. States without them fall back to Seconds and
	// CPUSeconds.
	BudgetSeconds float64 `json:"budget_seconds,omitempty"`
	BudgetCPU     float64 `json:"budget_cpu_seconds,omitempty"`
	// CosineIter and CosineFrom anchor the cosine schedule's progress:
	// CosineFrom at iteration CosineIter, rising linearly to 1 at Steps.
	// A refit of Steps moves the anchor to the iteration it happens at,
	// so that a change of the host's speed changes the lr's slope, never
	// its value: without the anchor the lr jumped down when the host
	// slowed, and rose again when it sped up.
	CosineIter int     `json:"cosine_iteration,omitempty"`
	CosineFrom float64 `json:"cosine_from,omitempty"`
	LastGood   int     `json:"last_good"`
	Skipped    int     `json:"skipped"` // updates skipped for non-finite gradients
	// Reached marks the parameters a backward pass has reached: Adam
	// updates them every step from then on (torch's grad not None).
	Reached []bool `json:"reached"`
	// ModelRNG is a baseline's own random state (qe.Stateful: ConE's
	// dropout).
	ModelRNG []byte `json:"model_rng,omitempty"`
}

// Progress is the cosine schedule's progress at iteration it: 0 at the
// start, 1 at Steps and after (0 before the schedule is laid out).
func (s *State) Progress(it int) float64 {
	switch {
	case s.Steps <= 0:
		return 0
	case s.Steps <= s.CosineIter:
		return 1
	}
	return min(1, s.CosineFrom+(1-s.CosineFrom)*float64(it-s.CosineIter)/float64(s.Steps-s.CosineIter))
}

// refit lays the schedule out again for steps iterations, the next lr
// drop at iteration next, the cosine's progress anchored where it stands.
func (s *State) refit(steps int, next float64) {
	s.CosineFrom, s.CosineIter = s.Progress(s.Iteration), s.Iteration
	s.Steps, s.NextDrop = steps, next
}

func saveState(path string, st *State) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return checkpoint.WriteFileAtomic(path, append(b, '\n'))
}

func loadState(dir string) (*State, error) {
	p := filepath.Join(dir, checkpoint.StateFile)
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var st State
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("%s: %v", p, err)
	}
	return &st, nil
}

// saveOptimizer writes Adam's moments as m.<param> and v.<param> tensors
// and the per-parameter step counts in the metadata.
func saveOptimizer[T kernel.Float](path string, params []paramInfo, opt *optim.Adam[T], iteration int) error {
	s := opt.State()
	var ts []safetensors.Tensor
	steps := make([]int, len(params))
	for i, p := range params {
		if i < len(s.Steps) {
			steps[i] = s.Steps[i]
		}
		if i < len(s.M) && s.M[i] != nil {
			ts = append(ts, newTensor("m."+p.name, p.shape, s.M[i]), newTensor("v."+p.name, p.shape, s.V[i]))
		}
	}
	sb, _ := json.Marshal(steps)
	return safetensors.WriteFile(path, ts, map[string]string{"steps": string(sb), "gammae.iteration": fmt.Sprint(iteration)})
}

func loadOptimizer[T kernel.Float](path string, params []paramInfo, opt *optim.Adam[T]) error {
	f, release, err := safetensors.MapFile(path)
	if err != nil {
		return err
	}
	defer release()
	var steps []int
	if err := json.Unmarshal([]byte(f.Metadata["steps"]), &steps); err != nil || len(steps) != len(params) {
		return fmt.Errorf("%s: bad step counts", path)
	}
	s := optim.State[T]{Steps: steps, M: make([][]T, len(params)), V: make([][]T, len(params))}
	sizes := make([]int, len(params))
	for i, p := range params {
		sizes[i] = p.size
		if steps[i] == 0 {
			continue
		}
		for _, kind := range []string{"m.", "v."} {
			t, err := f.Tensor(kind + p.name)
			if err != nil {
				return fmt.Errorf("%s: %v", path, err)
			}
			v, err := tensorData[T](t)
			if err != nil {
				return fmt.Errorf("%s: %v", path, err)
			}
			if kind == "m." {
				s.M[i] = v
			} else {
				s.V[i] = v
			}
		}
	}
	return opt.SetState(s, sizes)
}

// paramInfo is what the optimiser files need of a parameter.
type paramInfo struct {
	name  string
	shape []int
	size  int
}

func gammaParams(m *gamma.Model[float32]) []paramInfo {
	var out []paramInfo
	for _, p := range m.Params() {
		out = append(out, paramInfo{p.Name, p.Shape, len(p.Data)})
	}
	return out
}

func newTensor[T kernel.Float](name string, shape []int, v []T) safetensors.Tensor {
	switch v := any(v).(type) {
	case []float32:
		return safetensors.NewFloat32(name, shape, v)
	case []float64:
		return safetensors.NewFloat64(name, shape, v)
	}
	panic("unreachable")
}

func tensorData[T kernel.Float](t safetensors.Tensor) ([]T, error) {
	v := make([]T, max(t.NumElements(), 0)) // a bad shape is DecodeFloats's error
	return v, safetensors.DecodeFloats(t, v)
}
