package kernel

// DotF64 is Σ x[i]·y[i] in float64 on the vector level (AVX-512: eight
// lanes; else a four-way unrolled loop). Its summation order is its own,
// unlike Dot[float64], which is the float64 reference of the GammaE path:
// the baselines' linear layers use this one.
func DotF64(x, y []float64) float64 {
	checkLen("DotF64", len(y), len(x))
	if cur.dot64 != nil {
		defer clearUpper()
		return cur.dot64(x, y)
	}
	return dot64Go(x, y)
}

// AxpyF64 is y += alpha·x in float64, as DotF64.
func AxpyF64(alpha float64, x, y []float64) {
	checkLen("AxpyF64", len(y), len(x))
	if cur.axpy64 != nil {
		defer clearUpper()
		cur.axpy64(alpha, x, y)
		return
	}
	axpy64Go(alpha, x, y)
}

// dot64Go keeps four partial sums, so that the adds of consecutive
// elements do not wait on each other.
func dot64Go(x, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += x[i] * y[i]
		s1 += x[i+1] * y[i+1]
		s2 += x[i+2] * y[i+2]
		s3 += x[i+3] * y[i+3]
	}
	for ; i < len(x); i++ {
		s0 += x[i] * y[i]
	}
	return (s0 + s1) + (s2 + s3)
}

func axpy64Go(alpha float64, x, y []float64) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += alpha * v
	}
}
