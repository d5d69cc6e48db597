package ad

import "math"

// Digamma is ψ(x) for x > 0 (NaN otherwise): recurrence up to x ≥ 10, then
// the asymptotic series; about 1e-15 relative.
func Digamma(x float64) float64 {
	if !(x > 0) {
		return math.NaN()
	}
	r := 0.0
	for x < 10 {
		r -= 1 / x
		x++
	}
	f := 1 / (x * x)
	return r + math.Log(x) - 0.5/x - f*(1.0/12-f*(1.0/120-f*(1.0/252-f*(1.0/240-f*(1.0/132)))))
}

// Trigamma is ψ'(x) for x > 0 (NaN otherwise), as Digamma.
func Trigamma(x float64) float64 {
	if !(x > 0) {
		return math.NaN()
	}
	r := 0.0
	for x < 10 {
		r += 1 / (x * x)
		x++
	}
	f := 1 / (x * x)
	return r + 1/x + f/2 + (1/(x*x*x))*(1.0/6-f*(1.0/30-f*(1.0/42-f*(1.0/30))))
}
