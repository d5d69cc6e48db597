// Package optim holds the optimiser of the training loop: Adam with
// PyTorch's semantics (torch.optim.Adam, no weight decay, no amsgrad),
// and on request a decoupled weight decay (AdamW's, Adam.Shrink).
package optim

import (
	"fmt"

	"github.com/gammae/gammae/internal/kernel"
)

// Adam is torch.optim.Adam over a fixed list of parameter tensors. As in
// PyTorch, a parameter whose gradient is nil (torch's grad None) is skipped
// and keeps no state; the step count and moments are per parameter, so a
// parameter first reached late starts its own bias correction.
type Adam[T kernel.Float] struct {
	LR, Beta1, Beta2, Eps float64
	// ZeroGrads makes Step set each gradient it applies to zero in the
	// same pass (the next zero_grad, without a pass of its own), except
	// those of the parameters marked in KeepGrads (by index), which the
	// caller overwrites before the next step.
	ZeroGrads bool
	KeepGrads []bool
	// Shrink, by parameter index, multiplies a parameter by the factor
	// before this step's update (0 or absent: none): a decoupled weight
	// decay, AdamW's 1 − lr·λ, done in the update's pass over the values
	// with the bits of kernel.Scale before Step. A parameter without a
	// gradient is shrunk all the same, in a pass of its own.
	Shrink []float64
	state  []moments[T]
}

type moments[T kernel.Float] struct {
	step int
	m, v []T
}

// NewAdam returns Adam with PyTorch's defaults (β = 0.9, 0.999; ε = 1e-8).
func NewAdam[T kernel.Float](lr float64) *Adam[T] {
	return &Adam[T]{LR: lr, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8}
}

// Step applies one update to every parameter with a gradient. params and
// grads are parallel; their count and sizes must stay the same across
// steps.
func (a *Adam[T]) Step(params, grads [][]T) error {
	if len(params) != len(grads) {
		return fmt.Errorf("adam: %d parameters, %d gradients", len(params), len(grads))
	}
	if a.state == nil {
		a.state = make([]moments[T], len(params))
	}
	if len(a.state) != len(params) {
		return fmt.Errorf("adam: state for %d parameters, got %d", len(a.state), len(params))
	}
	for i, g := range grads {
		if g == nil {
			continue
		}
		if len(g) != len(params[i]) {
			return fmt.Errorf("adam: parameter %d has %d values, gradient %d", i, len(params[i]), len(g))
		}
		if m := a.state[i].m; m != nil && len(m) != len(g) {
			return fmt.Errorf("adam: parameter %d has %d values, state %d", i, len(g), len(m))
		}
	}
	ts := make([]kernel.AdamTensor[T], 0, len(grads))
	for i, g := range grads {
		shrink := 0.0
		if i < len(a.Shrink) {
			shrink = a.Shrink[i]
		}
		if g == nil {
			if shrink != 0 {
				kernel.Scale(T(shrink), params[i])
			}
			continue
		}
		s := &a.state[i]
		if s.m == nil {
			s.m, s.v = make([]T, len(g)), make([]T, len(g))
		}
		s.step++
		ts = append(ts, kernel.AdamTensor[T]{P: params[i], G: g, M: s.m, V: s.v,
			AdamParams: kernel.AdamParams{LR: a.LR, Beta1: a.Beta1, Beta2: a.Beta2, Eps: a.Eps, Step: s.step, ZeroGrad: a.ZeroGrads && !(i < len(a.KeepGrads) && a.KeepGrads[i]), Shrink: shrink}})
	}
	// One pass over all tensors (kernel.AdamAll: vectors for float32,
	// split over the cores).
	kernel.AdamAll(ts)
	return nil
}

// Reset forgets all moments and step counts, as constructing a new torch
// optimiser does (the reference resets Adam when it drops the lr).
func (a *Adam[T]) Reset() {
	// As a new torch optimiser: every moment zero, every step count 0. The
	// buffers are kept: reallocating hundreds of MB would fault them in again.
	for i := range a.state {
		s := &a.state[i]
		clear(s.m)
		clear(s.v)
		s.step = 0
	}
}

// State is Adam's state for checkpoints: per parameter the step count and
// the first and second moments (nil for a parameter never updated).
type State[T kernel.Float] struct {
	Steps []int
	M, V  [][]T
}

// State returns a copy-free view of the optimiser state.
func (a *Adam[T]) State() State[T] {
	s := State[T]{Steps: make([]int, len(a.state)), M: make([][]T, len(a.state)), V: make([][]T, len(a.state))}
	for i, st := range a.state {
		s.Steps[i], s.M[i], s.V[i] = st.step, st.m, st.v
	}
	return s
}

// SetState restores a state saved by State for parameters of the given
// sizes.
func (a *Adam[T]) SetState(s State[T], sizes []int) error {
	if len(s.Steps) != len(sizes) || len(s.M) != len(sizes) || len(s.V) != len(sizes) {
		return fmt.Errorf("adam state: %d/%d/%d entries for %d parameters", len(s.Steps), len(s.M), len(s.V), len(sizes))
	}
	st := make([]moments[T], len(sizes))
	for i, n := range sizes {
		switch {
		case s.Steps[i] < 0:
			return fmt.Errorf("adam state: parameter %d has step %d", i, s.Steps[i])
		case s.M[i] == nil && s.V[i] == nil && s.Steps[i] == 0:
			continue
		case len(s.M[i]) != n || len(s.V[i]) != n:
			return fmt.Errorf("adam state: parameter %d has moments of %d and %d values, want %d", i, len(s.M[i]), len(s.V[i]), n)
		}
		st[i] = moments[T]{step: s.Steps[i], m: append([]T(nil), s.M[i]...), v: append([]T(nil), s.V[i]...)}
	}
	a.state = st
	return nil
}
