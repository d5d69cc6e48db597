package kernel

import "math"

// The pure-Go specification of every kernel. The fast paths are tested
// against these.

func gemmRef[T Float](transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s T
			for p := 0; p < k; p++ {
				var av, bv T
				if transA {
					av = a[p*lda+i]
				} else {
					av = a[i*lda+p]
				}
				if transB {
					bv = b[j*ldb+p]
				} else {
					bv = b[p*ldb+j]
				}
				s += av * bv
			}
			if beta == 0 {
				c[i*ldc+j] = alpha * s
			} else {
				c[i*ldc+j] = alpha*s + beta*c[i*ldc+j]
			}
		}
	}
}

func lgammaRef[T Float](dst, x []T) {
	for i, v := range x {
		l, _ := math.Lgamma(float64(v))
		if !(v > 0) {
			l = math.NaN()
		}
		dst[i] = T(l)
	}
}

func digammaRef[T Float](dst, x []T) {
	for i, v := range x {
		dst[i] = T(digammaRef64(float64(v)))
	}
}

func trigammaRef[T Float](dst, x []T) {
	for i, v := range x {
		dst[i] = T(trigammaRef64(float64(v)))
	}
}

// digammaRef64 uses the recurrence ψ(x) = ψ(x+1) − 1/x up to x ≥ 10 and the
// asymptotic series there (next term < 1e-17); NaN for x ≤ 0.
func digammaRef64(x float64) float64 {
	if !(x > 0) {
		return math.NaN()
	}
	r := 0.0
	for x < 10 {
		r -= 1 / x
		x++
	}
	f := 1 / (x * x)
	t := f * (-1.0/12 + f*(1.0/120+f*(-1.0/252+f*(1.0/240+f*(-1.0/132+f*(691.0/32760+f*(-1.0/12+f*3617.0/8160)))))))
	return r + math.Log(x) - 0.5/x + t
}

// trigammaRef64 uses ψ'(x) = ψ'(x+1) + 1/x² up to x ≥ 10 and the asymptotic
// series; NaN for x ≤ 0.
func trigammaRef64(x float64) float64 {
	if !(x > 0) {
		return math.NaN()
	}
	r := 0.0
	for x < 10 {
		r += 1 / (x * x)
		x++
	}
	f := 1 / (x * x)
	t := 1/x + f/2 + f/x*(1.0/6+f*(-1.0/30+f*(1.0/42+f*(-1.0/30+f*(5.0/66+f*(-691.0/2730+f*(7.0/6+f*(-3617.0/510))))))))
	return r + t
}

func expRef[T Float](dst, x []T) {
	for i, v := range x {
		dst[i] = T(math.Exp(float64(v)))
	}
}

func logRef[T Float](dst, x []T) {
	for i, v := range x {
		dst[i] = T(math.Log(float64(v)))
	}
}

func axpyRef[T Float](alpha T, x, y []T) {
	for i, v := range x {
		y[i] += alpha * v
	}
}

func dotRef[T Float](x, y []T) T {
	var s T
	for i, v := range x {
		s += v * y[i]
	}
	return s
}

func scaleRef[T Float](alpha T, x []T) {
	for i := range x {
		x[i] *= alpha
	}
}

func addBiasRef[T Float](c, bias []T, rows, cols int, relu bool) {
	for i := range rows {
		for j := range cols {
			v := c[i*cols+j] + bias[j]
			if relu && v < 0 {
				v = 0
			}
			c[i*cols+j] = v
		}
	}
}

// affineRef sets c = a·(c + x) + b elementwise, the sum first.
func affineRef[T Float](c, x []T, a, b T) {
	c = c[:len(x)]
	for j, v := range x {
		c[j] = a*(c[j]+v) + b
	}
}

func reluBackwardRef[T Float](dy, y []T) {
	for i, v := range y {
		if !(v > 0) {
			dy[i] = 0
		}
	}
}

func sumRowsRef[T Float](dst, x []T, rows, cols int) {
	for j := range cols {
		var s T
		for i := range rows {
			s += x[i*cols+j]
		}
		dst[j] = s
	}
}

// Digamma64 is ψ(x) in float64, the reference of the vector kernels.
func Digamma64(x float64) float64 { return digammaRef64(x) }

// Trigamma64 is ψ'(x) in float64, the reference of the vector kernels.
func Trigamma64(x float64) float64 { return trigammaRef64(x) }
