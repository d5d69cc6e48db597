package ad

import "github.com/gammae/gammae/internal/kernel"

// Digamma is ψ(x) for x > 0 (NaN otherwise), the kernels' float64
// reference: recurrence up to x ≥ 10, then the asymptotic series.
func Digamma(x float64) float64 { return kernel.Digamma64(x) }

// Trigamma is ψ'(x) for x > 0 (NaN otherwise), as Digamma.
func Trigamma(x float64) float64 { return kernel.Trigamma64(x) }
