package kernel

import "math"

// The per-row passes of the dense training losses (a softmax cross-entropy
// over a row's candidates, and a sigmoid term beside it), each one pass
// over the row instead of a scalar loop around every vector map: at 512
// rows of 2,561 candidates a step they were ~5 % of a fast-long iteration.

// ExpSum sets dst[i] = e^(a·x[i] − b) and returns Σ dst[i] and the sum of
// the x[i] other than −Inf, both in float64. −Inf marks an entry out of a
// softmax: its exponential is 0 and it is left out of the sum of x.
// float32: a·x − b fused, the exponential within 2 ulp, the sums in 8
// interleaved partial sums.
func ExpSum[T Float](dst, x []T, a, b T) (sumExp, sumX float64) {
	defer clearUpper()
	checkLen("ExpSum", len(dst), len(x))
	if x32, ok := any(x).([]float32); ok {
		return cur.expSum(any(dst).([]float32), x32, math.Float32bits(float32(a)), math.Float32bits(-float32(b)))
	}
	for i, v := range x {
		e := T(math.Exp(float64(a*v - b)))
		dst[i] = e
		sumExp += float64(e)
		if !math.IsInf(float64(v), -1) {
			sumX += float64(v)
		}
	}
	return sumExp, sumX
}

// ScaleShift sets x[i] = a·x[i] − b (float32: fused).
func ScaleShift[T Float](x []T, a, b T) {
	defer clearUpper()
	if x32, ok := any(x).([]float32); ok {
		cur.scaleShift(x32, math.Float32bits(float32(a)), math.Float32bits(-float32(b)))
		return
	}
	for i, v := range x {
		x[i] = a*v - b
	}
}

// SigmoidLoss adds c·σ(x[i]) to g[i] and returns Σ −log σ(−x[i]) =
// Σ ln(1 + e^x[i]) in float64: the gradient and value of the negatives'
// part of the reference's loss, c the weight of one term's gradient. x is
// capped at 80 (a logit is at most γ); −Inf contributes nothing (an entry
// out of the loss). float32: σ = u/(1+u) and ln(1+u) for u = e^x, the
// gradient fused, the sum in 8 interleaved partial sums.
func SigmoidLoss[T Float](g, x []T, c T) float64 {
	defer clearUpper()
	checkLen("SigmoidLoss", len(g), len(x))
	if x32, ok := any(x).([]float32); ok {
		return cur.sigmoidLoss(any(g).([]float32), x32, math.Float32bits(float32(c)))
	}
	sum := 0.0
	for i, v := range x {
		u := math.Exp(float64(min(v, 80)))
		g[i] += c * T(u/(1+u))
		sum += math.Log(1 + u)
	}
	return sum
}

// The scalar twins of the vector levels, float32 operation for operation
// (the levels take their float32 arguments as bits: see SigmoidSum).

func expSumAt(dst, x []float32, a, nb float32, i int, accE, accX *[8]float64) {
	v := x[i]
	e := exp32(fma32(v, a, nb))
	dst[i] = e
	accE[i%8] += float64(e)
	if v != float32(math.Inf(-1)) {
		accX[i%8] += float64(v)
	}
}

func expSumTwin(dst, x []float32, ab, nbb uint32) (float64, float64) {
	dst = dst[:len(x)]
	a, nb := math.Float32frombits(ab), math.Float32frombits(nbb)
	var accE, accX [8]float64
	for i := range x {
		expSumAt(dst, x, a, nb, i, &accE, &accX)
	}
	return sumAcc64(&accE), sumAcc64(&accX)
}

func scaleShiftTwin(x []float32, ab, nbb uint32) {
	a, nb := math.Float32frombits(ab), math.Float32frombits(nbb)
	for i, v := range x {
		x[i] = fma32(v, a, nb)
	}
}

func sigmoidLossAt(g, x []float32, c float32, i int, acc *[8]float64) {
	u := exp32(min(x[i], 80))
	v := 1 + u
	g[i] = fma32(u/v, c, g[i])
	acc[i%8] += float64(log32(v))
}

func sigmoidLossTwin(g, x []float32, cb uint32) float64 {
	g = g[:len(x)]
	c := math.Float32frombits(cb)
	var acc [8]float64
	for i := range x {
		sigmoidLossAt(g, x, c, i, &acc)
	}
	return sumAcc64(&acc)
}

// The pure-Go level: float64 exponentials and logarithms, faster as scalar
// code.

func expSumGo(dst, x []float32, ab, nbb uint32) (float64, float64) {
	dst = dst[:len(x)]
	a, nb := float64(math.Float32frombits(ab)), float64(math.Float32frombits(nbb))
	var accE, accX [8]float64
	for i, v := range x {
		e := float32(math.Exp(float64(v)*a + nb))
		dst[i] = e
		accE[i%8] += float64(e)
		if !math.IsInf(float64(v), -1) {
			accX[i%8] += float64(v)
		}
	}
	return sumAcc64(&accE), sumAcc64(&accX)
}

func sigmoidLossGo(g, x []float32, cb uint32) float64 {
	g = g[:len(x)]
	c := float64(math.Float32frombits(cb))
	var acc [8]float64
	for i, v := range x {
		u := math.Exp(float64(min(v, 80)))
		g[i] += float32(c * u / (1 + u))
		acc[i%8] += math.Log1p(u)
	}
	return sumAcc64(&acc)
}
